public class Osr2 {
    static long step2(int[] a, int reps) {
        long s = 0;
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < a.length; i += 2) {
                s += a[i];
            }
        }
        return s;
    }

    static long down(int[] a, int reps) {
        long s = 0;
        for (int r = 0; r < reps; r++) {
            for (int i = a.length - 1; i >= 0; i -= 3) {
                s += a[i];
            }
        }
        return s;
    }

    static long bounded(int[] a, int n, int reps) {
        long s = 0;
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < n; i++) {
                s += a[i];
            }
        }
        return s;
    }

    static long pairs(int[] a, int reps) {
        long s = 0;
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i + 1 < a.length; i += 2) {
                s += a[i] ^ a[i + 1];
            }
        }
        return s;
    }

    static long chars(String t, int reps) {
        long s = 0;
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < t.length(); i += 5) {
                s += t.charAt(i);
            }
        }
        return s;
    }

    static long longStep(long[] a, int step, int reps) {
        long s = 0;
        for (int r = 0; r < reps; r++) {
            for (int i = r & 3; i < a.length; i += step) {
                s += a[i];
            }
        }
        return s;
    }

    public static void main(String[] args) {
        int[] a = new int[1000];
        for (int i = 0; i < a.length; i++) a[i] = i + 1;
        long[] l = new long[1000];
        long t = step2(a, 200_000);
        t += down(a, 300_000);
        t += bounded(a, 999, 100_000);
        t += pairs(a, 200_000);
        t += chars("abcdefghij".repeat(100), 300_000);
        t += longStep(l, 3, 300_000);
        System.out.println(t);
    }
}
