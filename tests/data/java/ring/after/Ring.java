// Sum n elements of a ring buffer starting at `start`, rewritten as two runs with affine indexes (from start to
// the end, then from 0): C2 can eliminate the range checks of both loops.
public class Ring {
    static long sum(int[] a, int start, int n) {
        long s = 0;
        int first = Math.min(n, a.length - start);
        for (int i = start; i < start + first; i++) s += a[i];
        for (int i = 0; i < n - first; i++) s += a[i];
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
