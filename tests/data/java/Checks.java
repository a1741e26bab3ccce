public class Checks {
    static int osr(int[] a, int[] ix, int reps) {
        int s = 0;
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < ix.length; i++) {
                s += a[ix[i]];
            }
        }
        return s;
    }

    static int offset(int[] a, int k, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i + k];
        }
        return s;
    }

    static int[] copy(int[] a) {
        int[] b = a.clone();
        b[0]++;
        return b;
    }

    public static void main(String[] args) {
        int[] a = new int[1000];
        int[] ix = new int[1000];
        for (int i = 0; i < ix.length; i++) {
            ix[i] = (i * 7) % a.length;
            a[i] = i;
        }
        long t = osr(a, ix, 200_000);
        for (int r = 0; r < 20_000; r++) {
            t += offset(a, r % 10, 990);
            t += copy(a)[r % 10];
        }
        System.out.println(t);
    }
}
