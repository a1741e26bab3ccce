// interpreted and c1-hot: four copies of one loop. interpreted() is never compiled
// (-XX:CompileCommand=exclude,Tiers::interpreted), compiled() is; c1Only() may not be compiled by C2 (a compiler
// directive excludes it from C2 only), c2() is.
public class Tiers {
    static int interpreted(int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += data[i] * 7 + (s >>> 3); // FIND interpreted
        }
        return s;
    }

    static int compiled(int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += data[i] * 7 + (s >>> 3); // TWIN interpreted
        }
        return s;
    }

    static int c1Only(int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += data[i] * 7 + (s >>> 3); // FIND c1-hot
        }
        return s;
    }

    static int c2(int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += data[i] * 7 + (s >>> 3); // TWIN c1-hot
        }
        return s;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4.0;
        int n = 1 << 10;
        int[] data = new int[n];
        for (int i = 0; i < n; i++) data[i] = i * 31;
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long total = 0;
        while (System.nanoTime() < deadline) {
            total += interpreted(data, n);
            for (int k = 0; k < 20; k++) total += compiled(data, n);
            for (int k = 0; k < 4; k++) total += c1Only(data, n);
            for (int k = 0; k < 20; k++) total += c2(data, n);
        }
        System.out.println("Tiers: checksum " + total);
    }
}
