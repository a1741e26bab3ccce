// The findings of asmcfg --findings, each next to a twin that differs only in the cause.
public class Findings {
    static abstract class Op { abstract int apply(int x); }
    static final class Add extends Op { int apply(int x) { return x + 7; } }
    static final class Mul extends Op { int apply(int x) { return x * 3; } }
    static final class Xor extends Op { int apply(int x) { return x ^ 0x5a5a; } }
    static final class Point { final int x, y; Point(int x, int y) { this.x = x; this.y = y; } }

    static Point[] kept = new Point[1024];

    // check-in-loop: data[idx[i]] is range-checked on every trip (the index comes from memory).
    static int checkHot(int[] data, int[] idx, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += data[idx[i]]; // FIND check-in-loop
        }
        return s;
    }

    // twin: the loop's own counter indexes the array, so C2 proves it in range.
    static int checkTwin(int[] data, int[] idx, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += data[i]; // TWIN check-in-loop
        }
        return s;
    }

    // not-inlined: big() is over FreqInlineSize (325 bytes of bytecode).
    static int inlineHot(int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += big(data[i]); // FIND not-inlined
        }
        return s;
    }

    // twin: the callee made small.
    static int inlineTwin(int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += small(data[i]); // TWIN not-inlined
        }
        return s;
    }

    static int big(int x) {
        x = x * 31 + 7;
        x = x * 33 + 8;
        x = x * 35 + 9;
        x = x * 37 + 10;
        x = x * 39 + 11;
        x = x * 41 + 12;
        x = x * 43 + 13;
        x = x * 45 + 14;
        x = x * 47 + 15;
        x = x * 49 + 16;
        x = x * 51 + 17;
        x = x * 53 + 18;
        x = x * 55 + 19;
        x = x * 57 + 20;
        x = x * 59 + 21;
        x = x * 61 + 22;
        x = x * 63 + 23;
        x = x * 65 + 24;
        x = x * 67 + 25;
        x = x * 69 + 26;
        x = x * 71 + 27;
        x = x * 73 + 28;
        x = x * 75 + 29;
        x = x * 77 + 30;
        x = x * 79 + 31;
        x = x * 81 + 32;
        x = x * 83 + 33;
        x = x * 85 + 34;
        x = x * 87 + 35;
        x = x * 89 + 36;
        x = x * 91 + 37;
        x = x * 93 + 38;
        x = x * 95 + 39;
        x = x * 97 + 40;
        x = x * 99 + 41;
        x = x * 101 + 42;
        x = x * 103 + 43;
        x = x * 105 + 44;
        x = x * 107 + 45;
        x = x * 109 + 46;
        x = x * 111 + 47;
        x = x * 113 + 48;
        x = x * 115 + 49;
        x = x * 117 + 50;
        x = x * 119 + 51;
        x = x * 121 + 52;
        x = x * 123 + 53;
        x = x * 125 + 54;
        return x;
    }

    static int small(int x) {
        return x * 31 + 7;
    }

    // megamorphic: three receiver types at one call site.
    static int megaHot(Op[] ops, int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += ops[data[i] & 3].apply(i); // FIND megamorphic
        }
        return s;
    }

    // twin: one receiver type.
    static int megaTwin(Op[] ops, int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += ops[data[i] & 3].apply(i); // TWIN megamorphic
        }
        return s;
    }

    // allocation-in-loop: each Point escapes into an array.
    static int allocHot(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            Point p = new Point(i, s); // FIND allocation-in-loop
            kept[i & 1023] = p;
            s += p.x;
        }
        return s;
    }

    // twin: the Point does not escape: escape analysis replaces it by its fields.
    static int allocTwin(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            Point p = new Point(i, s); // TWIN allocation-in-loop
            s += p.x;
        }
        return s;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4.0;
        int n = 1 << 14;
        int[] data = new int[n];
        int[] idx = new int[n];
        long x = 12345;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            data[i] = (int) (x >>> 40);
            idx[i] = (int) ((x >>> 33) % n);
        }
        Op[] three = { new Add(), new Mul(), new Xor(), new Add() };
        Op[] one = { new Add(), new Add(), new Add(), new Add() };
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long total = 0;
        int rounds = 0;
        while (System.nanoTime() < deadline) {
            total += checkHot(data, idx, n);
            for (int k = 0; k < 8; k++) total += checkTwin(data, idx, n);
            total += inlineHot(data, n);
            for (int k = 0; k < 16; k++) total += inlineTwin(data, n);
            total += megaHot(three, data, n) + megaTwin(one, data, n);
            total += allocHot(n) + allocTwin(n);
            rounds++;
        }
        System.out.println("Findings: " + rounds + " rounds, checksum " + total);
    }
}
