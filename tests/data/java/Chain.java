// Inlining chains: a recursive method (fib) inlined into a loop, and a method over FreqInlineSize (work)
// called from a tiny method (leaf) that is inlined at two depths: straight into run, and through mid.
public class Chain {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static int work(int x) {
        x = x * 31 + (x >>> 1) ^ 3;
        x = x * 32 + (x >>> 2) ^ 10;
        x = x * 33 + (x >>> 3) ^ 17;
        x = x * 34 + (x >>> 4) ^ 24;
        x = x * 35 + (x >>> 5) ^ 31;
        x = x * 36 + (x >>> 6) ^ 38;
        x = x * 37 + (x >>> 7) ^ 45;
        x = x * 38 + (x >>> 8) ^ 52;
        x = x * 39 + (x >>> 9) ^ 59;
        x = x * 40 + (x >>> 10) ^ 66;
        x = x * 41 + (x >>> 11) ^ 73;
        x = x * 42 + (x >>> 12) ^ 80;
        x = x * 43 + (x >>> 13) ^ 87;
        x = x * 44 + (x >>> 1) ^ 94;
        x = x * 45 + (x >>> 2) ^ 101;
        x = x * 46 + (x >>> 3) ^ 108;
        x = x * 47 + (x >>> 4) ^ 115;
        x = x * 48 + (x >>> 5) ^ 122;
        x = x * 49 + (x >>> 6) ^ 129;
        x = x * 50 + (x >>> 7) ^ 136;
        x = x * 51 + (x >>> 8) ^ 143;
        x = x * 52 + (x >>> 9) ^ 150;
        x = x * 53 + (x >>> 10) ^ 157;
        x = x * 54 + (x >>> 11) ^ 164;
        x = x * 55 + (x >>> 12) ^ 171;
        x = x * 56 + (x >>> 13) ^ 178;
        x = x * 57 + (x >>> 1) ^ 185;
        x = x * 58 + (x >>> 2) ^ 192;
        x = x * 59 + (x >>> 3) ^ 199;
        x = x * 60 + (x >>> 4) ^ 206;
        x = x * 61 + (x >>> 5) ^ 213;
        x = x * 62 + (x >>> 6) ^ 220;
        x = x * 63 + (x >>> 7) ^ 227;
        x = x * 64 + (x >>> 8) ^ 234;
        x = x * 65 + (x >>> 9) ^ 241;
        x = x * 66 + (x >>> 10) ^ 248;
        x = x * 67 + (x >>> 11) ^ 255;
        x = x * 68 + (x >>> 12) ^ 262;
        x = x * 69 + (x >>> 13) ^ 269;
        x = x * 70 + (x >>> 1) ^ 276;
        x = x * 71 + (x >>> 2) ^ 283;
        x = x * 72 + (x >>> 3) ^ 290;
        x = x * 73 + (x >>> 4) ^ 297;
        x = x * 74 + (x >>> 5) ^ 304;
        x = x * 75 + (x >>> 6) ^ 311;
        x = x * 76 + (x >>> 7) ^ 318;
        x = x * 77 + (x >>> 8) ^ 325;
        x = x * 78 + (x >>> 9) ^ 332;
        x = x * 79 + (x >>> 10) ^ 339;
        x = x * 80 + (x >>> 11) ^ 346;
        x = x * 81 + (x >>> 12) ^ 353;
        x = x * 82 + (x >>> 13) ^ 360;
        x = x * 83 + (x >>> 1) ^ 367;
        x = x * 84 + (x >>> 2) ^ 374;
        x = x * 85 + (x >>> 3) ^ 381;
        x = x * 86 + (x >>> 4) ^ 388;
        x = x * 87 + (x >>> 5) ^ 395;
        x = x * 88 + (x >>> 6) ^ 402;
        x = x * 89 + (x >>> 7) ^ 409;
        x = x * 90 + (x >>> 8) ^ 416;
        return x;
    }

    static int leaf(int x) {
        return work(x) + 1;
    }

    static int mid(int x) {
        return leaf(x ^ 5) * 3;
    }

    static int run(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += fib(i & 7);
            s += leaf(s);
            s ^= mid(s);
        }
        return s;
    }

    public static void main(String[] args) {
        long acc = 0;
        for (int k = 0; k < 20000; k++) acc += run(200);
        System.out.println(acc);
    }
}
