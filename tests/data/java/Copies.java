import java.util.Arrays;

/** Loops C2 splits into pre/main/post copies, and intrinsic loops that are no such copies. */
public class Copies {
    static int sumInt(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
        }
        return s;
    }

    static long sumLong(long[] a) {
        long s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
        }
        return s;
    }

    static int mixInt(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s = s * 31 + (a[i] ^ i);
        }
        return s;
    }

    static void copyInt(int[] src, int[] dst) {
        for (int i = 0; i < src.length; i++) {
            dst[i] = src[i];
        }
    }

    static void copyLong(long[] src, long[] dst, int n) {
        for (int i = 0; i < n; i++) {
            dst[i] = src[i] + 1;
        }
    }

    static void scaleOffset(int[] src, int[] dst, int off, int n) {
        for (int i = 0; i < n; i++) {
            dst[i + off] = src[i] * 3;
        }
    }

    static int fill(int[] a, int v) {
        Arrays.fill(a, v);
        return a[a.length - 1];
    }

    static int copyOf(int[] a, int extra) {
        int[] b = Arrays.copyOf(a, a.length + extra);
        return b[b.length - 1] + b.length;
    }

    static int countEquals(String[] words, String key) {
        int n = 0;
        for (int i = 0; i < words.length; i++) {
            if (words[i].equals(key)) {
                n++;
            }
        }
        return n;
    }

    static int hash(int[] a) {
        return Arrays.hashCode(a);
    }

    public static void main(String[] args) {
        int[] ints = new int[1000];
        long[] longs = new long[1000];
        int[] out = new int[1100];
        long[] lout = new long[1000];
        for (int i = 0; i < ints.length; i++) {
            ints[i] = i * 7;
            longs[i] = i * 11L;
        }
        String[] words = new String[64];
        for (int i = 0; i < words.length; i++) {
            words[i] = "word-number-" + (i % 8) + "-of-the-list";
        }
        String key = new String("word-number-3-of-the-list");
        long total = 0;
        for (int r = 0; r < 20000; r++) {
            total += sumInt(ints);
            total += sumLong(longs);
            total += mixInt(ints);
            copyInt(ints, out);
            copyLong(longs, lout, 1000 - (r & 7));
            scaleOffset(ints, out, r & 63, 1000 - (r & 7));
            total += fill(out, r);
            total += copyOf(ints, 37 + (r & 3));
            total += countEquals(words, key);
            total += hash(ints);
        }
        System.out.println(total);
    }
}
