// Sum n elements of a ring buffer starting at `start`: the wrapped index is not an affine function of the
// loop variable, so C2 keeps a range check on a[i] inside the loop.
public class Ring {
    static long sum(int[] a, int start, int n) {
        long s = 0;
        for (int k = 0; k < n; k++) {
            int i = start + k;
            if (i >= a.length) i -= a.length;
            s += a[i];
        }
        return s;
    }

    public static void main(String[] args) {
        int[] a = new int[4096];
        for (int i = 0; i < a.length; i++) a[i] = i * 31 + 7;
        long acc = 0;
        for (int r = 0; r < 40000; r++) acc += sum(a, (r * 97) & 4095, 3000);
        System.out.println(acc);
    }
}
