// Calls the compilers replace with intrinsics: Math.sqrt, System.arraycopy (on arrays typed Object), String.equals
// and Object.hashCode on receivers of four classes (C2's virtual hashCode intrinsic keeps a virtual call to
// hashCode as its slow path, for the classes that override it).
public class Intr {
    static double root(double x) {
        return Math.sqrt(x);
    }

    static Object copy(Object src, Object dst, int n) {
        System.arraycopy(src, 0, dst, 0, n);
        return dst;
    }

    static int run(String[] words, int[] from, int[] to, Object[] objs, Object[] into, Object[] keys, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += keys[i & 3].hashCode() & 1;
            s += (int) root(i);
            copy(i % 2 == 0 ? from : objs, i % 2 == 0 ? to : into, 4);
            if (words[i & 3].equals(words[(i + 1) & 3])) s++;
        }
        return s;
    }

    public static void main(String[] args) {
        String[] words = { "alpha", "beta", new String("alpha"), "beta" };
        int[] from = new int[8], to = new int[8];
        Object[] objs = new Object[8], into = new Object[8];
        Object[] keys = { Integer.valueOf(7), new Object(), "key", Long.valueOf(9) };
        long acc = 0;
        for (int k = 0; k < 20000; k++) acc += run(words, from, to, objs, into, keys, 100);
        System.out.println(acc);
    }
}
