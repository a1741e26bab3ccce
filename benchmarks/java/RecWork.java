import java.util.HashMap;
import java.util.Map;

/** A fixed amount of CPU-bound work for benchmarks/bench_record.py: array loops, a hash map and string
 *  building, so that C1 and C2 compile a few dozen methods. Argument: rounds. */
public class RecWork {
    static long mix(int[] a, int salt) {
        long s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (a[i] ^ salt) * 31L + (a[i] >>> 3);
        }
        return s;
    }

    static int words(int round) {
        Map<String, Integer> counts = new HashMap<>();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            String word = "w" + ((i * 7 + round) % 23);
            counts.merge(word, 1, Integer::sum);
            text.append(word).append(' ');
        }
        return counts.size() + text.length();
    }

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        int[] a = new int[8192];
        for (int i = 0; i < a.length; i++) {
            a[i] = i * 7;
        }
        long sink = 0;
        for (int round = 0; round < rounds; round++) {
            sink += mix(a, round) + words(round);
        }
        System.out.println(sink);
    }
}
