import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A program for `asmcfg record` that starts JVMs of its own: `java RecHot MILLIS 0` with its environment as it
 *  is, then (with `clear`) the same with JAVA_TOOL_OPTIONS removed from the child's environment, each after the
 *  other. Arguments: milliseconds each child runs RecHot's loop, then optionally `clear`. Exits with the first
 *  non-zero status of a child, else 0. */
public class Forker {
    static int run(String millis, boolean clear) throws IOException, InterruptedException {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                                                       "RecHot", millis, "0"));
        ProcessBuilder child = new ProcessBuilder(command).inheritIO();
        if (clear) {
            child.environment().remove("JAVA_TOOL_OPTIONS");
        }
        return child.start().waitFor();
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        int status = run(args[0], false);
        if (status == 0 && args.length > 1 && args[1].equals("clear")) {
            status = run(args[0], true);
        }
        System.out.println("forker done");
        System.exit(status);
    }
}
