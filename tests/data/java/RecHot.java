import java.io.FileWriter;
import java.io.IOException;

/** A program for `asmcfg record`: a hot loop, known output, a chosen exit status, and a shutdown hook.
 *  Arguments: milliseconds to run the loop (-1: until stopped), exit status, and optionally a file the
 *  shutdown hook writes "hook ran" to. */
public class RecHot {
    static long mix(int[] a, int salt) {
        long s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (a[i] ^ salt) * 31L + (a[i] >>> 3);
        }
        return s;
    }

    public static void main(String[] args) throws IOException {
        long millis = Long.parseLong(args[0]);
        int status = Integer.parseInt(args[1]);
        if (args.length > 2) {
            String path = args[2];
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (FileWriter out = new FileWriter(path)) {
                    out.write("hook ran\n");
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        int[] a = new int[4096];
        for (int i = 0; i < a.length; i++) {
            a[i] = i * 7;
        }
        byte[] known = new byte[256];
        for (int i = 0; i < known.length; i++) {
            known[i] = (byte) i;
        }
        System.out.write(known);  // every byte value, as the program's own output
        System.out.println();
        System.out.println("ready " + mix(a, 1));
        System.out.flush();
        long end = System.nanoTime() + millis * 1_000_000L;
        long sink = 0;
        for (int round = 0; millis < 0 || System.nanoTime() < end; round++) {
            sink += mix(a, round);
        }
        System.out.println("done " + (sink == 42 ? "?" : "ok"));
        System.exit(status);
    }
}
