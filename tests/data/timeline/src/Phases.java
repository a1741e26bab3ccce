/** A hot method whose input changes twice: each change takes a branch C2 compiled as never taken (an uncommon
 * trap), so its code is made not entrant and the method is compiled again. Argument: seconds per phase. */
public class Phases {
    static int hot(int[] a) {
        int sum = 0;
        for (int i = 0; i < a.length; i++) {
            int v = a[i];
            if (v < 0) {
                sum -= v * 3;
            } else if (v > 1_000_000) {
                sum ^= v;
            } else {
                sum += v;
            }
        }
        return sum;
    }

    static long phase(int[] a, long nanos) {
        long end = System.nanoTime() + nanos;
        long total = 0;
        while (System.nanoTime() < end) {
            for (int k = 0; k < 100; k++) {
                total += hot(a);
            }
        }
        return total;
    }

    public static void main(String[] args) {
        long nanos = (long) (Double.parseDouble(args.length > 0 ? args[0] : "1.5") * 1e9);
        int[] a = new int[1000];
        for (int i = 0; i < a.length; i++) {
            a[i] = i;
        }
        long total = phase(a, nanos);
        a[500] = -5;
        total += phase(a, nanos);
        a[700] = 2_000_000;
        total += phase(a, nanos);
        System.out.println(total);
    }
}
