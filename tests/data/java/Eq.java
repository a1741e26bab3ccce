// String.equals inlined at five call sites of one C2 method; after warm-up only the fourth site is handed the
// same object twice, so the `this == anObject` branch, never taken while profiling, traps there and only there.
public class Eq {
    static int check(String a, String b, String c, String d, String e, String x) {
        int n = 0;
        if (a.equals(x)) n += 1;
        if (b.equals(x)) n += 2;
        if (c.equals(x)) n += 4;
        if (d.equals(x)) n += 8;
        if (e.equals(x)) n += 16;
        return n;
    }

    public static void main(String[] args) {
        String[] w = {"alpha", "bravo", "charlie", "delta", "echo"};
        String x = new String("zulu");
        long t = 0;
        for (int i = 0; i < 200000; i++) {
            t += check(w[0], w[1], w[2], w[3], w[4], x);
        }
        Thread.yield();
        t += check(w[0], w[1], w[2], x, w[4], x);
        System.out.println(t);
    }
}
