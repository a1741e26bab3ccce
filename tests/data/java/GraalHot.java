import java.nio.file.Files;
import java.nio.file.Path;

/** A program for `asmcfg record` under Graal: `step` called until a file exists (the test creates it once the
 *  JIT's top tier has compiled `step`), then once with the branch it never took, whose trap then fires. */
public class GraalHot {
    static int rare;

    static int step(int[] a, int i, int limit) {
        int v = a[i & (a.length - 1)] * 31 + i;
        if (v > limit) {
            rare++;
            v = -v;
        }
        return v;
    }

    public static void main(String[] args) {
        Path stop = Path.of(args[0]);
        int[] a = new int[64];
        for (int i = 0; i < a.length; i++) {
            a[i] = i;
        }
        long sum = 0;
        while (!Files.exists(stop)) {
            for (int i = 0; i < 100_000; i++) {
                sum += step(a, i, Integer.MAX_VALUE);
            }
        }
        sum += step(a, 3, -1);  // the branch never taken: its trap fires in the top tier's code
        System.out.println("sum " + sum + " rare " + rare);
    }
}
