// Loops with vector instructions that are not vectorized loops, and two that are.
public class VecShapes {
    static Object sink;

    // (a) a loop that allocates and throws an exception on some trips, and a small array on every trip:
    // the new objects are zeroed, the array loads are scalar
    static int throwing(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            try {
                if ((a[i] & 7) == 0) throw new IllegalStateException();
                s += a[i];
            } catch (IllegalStateException e) {
                s -= 1;
            }
            int[] box = new int[(a[i] & 15) + 1];
            box[0] = a[i];
            sink = box;
        }
        return s;
    }

    // (b) a loop calling String.equals, String.hashCode and String.compareTo on array elements
    static int strings(String[] a, String key) {
        int n = 0;
        for (int i = 0; i < a.length; i++) {
            if (a[i].equals(key)) n++;
            n += a[i].hashCode() + a[i].compareTo(key);
        }
        return n;
    }

    // (c) vectorized by C2: int adds, and stores of zero
    static void addI(int[] a, int[] b, int[] c) {
        for (int i = 0; i < c.length; i++) c[i] = a[i] + b[i];
    }

    static void zero(int[] a) {
        for (int i = 0; i < a.length; i++) a[i] = 0;
    }

    public static void main(String[] args) {
        int n = 1024;
        int[] a = new int[n], b = new int[n], c = new int[n];
        for (int i = 0; i < n; i++) { a[i] = i * 7 + 1; b[i] = 3 * i; }
        String[] words = new String[64];
        char[][] chars = new char[64][];
        for (int i = 0; i < words.length; i++) chars[i] = ("word number " + (i % 9) + " of the list").toCharArray();
        String key = "word number 3 of the list";
        long acc = 0;
        for (int k = 0; k < 20000; k++) {
            for (int i = 0; i < words.length; i++) words[i] = new String(chars[(i + k) & 63]);
            acc += throwing(a);
            acc += strings(words, key);
            addI(a, b, c);
            acc += c[k & (n - 1)];
            zero(c);
        }
        System.out.println(acc);
    }
}
