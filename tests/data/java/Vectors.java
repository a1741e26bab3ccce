// not-vectorized: each loop adds two int arrays into a third. longIndex() counts with a long, so C2 sees no
// counted loop and does not vectorize it; intIndex() is the same loop with an int counter. calls() leaves a call
// in its body (kept() is never inlined: -XX:CompileCommand=dontinline,Vectors::kept); inlined() calls twice(),
// the same method C2 inlines.
public class Vectors {
    static void longIndex(int[] a, int[] b, int[] c) {
        for (long i = 0; i < a.length; i++) {
            c[(int) i] = a[(int) i] + b[(int) i]; // FIND not-vectorized long
        }
    }

    static void intIndex(int[] a, int[] b, int[] c) {
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i] + b[i]; // TWIN not-vectorized long
        }
    }

    static void calls(int[] a, int[] b, int[] c) {
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i] + kept(b[i]); // FIND not-vectorized call
        }
    }

    static void inlined(int[] a, int[] b, int[] c) {
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i] + twice(b[i]); // TWIN not-vectorized call
        }
    }

    static int kept(int x) {
        return x + x;
    }

    static int twice(int x) {
        return x + x;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4.0;
        int n = 1 << 12;
        int[] a = new int[n];
        int[] b = new int[n];
        int[] c = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i * 31;
            b[i] = i ^ 0x5a5a;
        }
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long total = 0;
        int rounds = 0;
        while (System.nanoTime() < deadline) {
            longIndex(a, b, c);
            total += c[rounds & (n - 1)];
            for (int k = 0; k < 4; k++) {
                intIndex(a, b, c);
                total += c[k];
            }
            calls(a, b, c);
            total += c[rounds & (n - 1)];
            for (int k = 0; k < 4; k++) {
                inlined(a, b, c);
                total += c[k];
            }
            rounds++;
        }
        System.out.println("Vectors: " + rounds + " rounds, checksum " + total);
    }
}
