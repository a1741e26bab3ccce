// asmcfg whatif's test program: a loop C2 vectorizes (add), and a loop calling a small callee C2 inlines and
// a callee it refuses as too big (calls). Run: java -cp classes WhatIf [ROUNDS]
public class WhatIf {
    static final int N = 4096;
    static int[] a = new int[N], b = new int[N], c = new int[N];

    static void add() {
        for (int i = 0; i < N; i++) {
            c[i] = a[i] + b[i];
        }
    }

    static int small(int x) {
        return x * 3 + 1;
    }

    static int big(int x) {
        x = x * 31 + 1000; x ^= x >>> 1;
        x = x * 31 + 1001; x ^= x >>> 2;
        x = x * 31 + 1002; x ^= x >>> 3;
        x = x * 31 + 1003; x ^= x >>> 4;
        x = x * 31 + 1004; x ^= x >>> 5;
        x = x * 31 + 1005; x ^= x >>> 6;
        x = x * 31 + 1006; x ^= x >>> 7;
        x = x * 31 + 1007; x ^= x >>> 1;
        x = x * 31 + 1008; x ^= x >>> 2;
        x = x * 31 + 1009; x ^= x >>> 3;
        x = x * 31 + 1010; x ^= x >>> 4;
        x = x * 31 + 1011; x ^= x >>> 5;
        x = x * 31 + 1012; x ^= x >>> 6;
        x = x * 31 + 1013; x ^= x >>> 7;
        x = x * 31 + 1014; x ^= x >>> 1;
        x = x * 31 + 1015; x ^= x >>> 2;
        x = x * 31 + 1016; x ^= x >>> 3;
        x = x * 31 + 1017; x ^= x >>> 4;
        x = x * 31 + 1018; x ^= x >>> 5;
        x = x * 31 + 1019; x ^= x >>> 6;
        x = x * 31 + 1020; x ^= x >>> 7;
        x = x * 31 + 1021; x ^= x >>> 1;
        x = x * 31 + 1022; x ^= x >>> 2;
        x = x * 31 + 1023; x ^= x >>> 3;
        x = x * 31 + 1024; x ^= x >>> 4;
        x = x * 31 + 1025; x ^= x >>> 5;
        x = x * 31 + 1026; x ^= x >>> 6;
        x = x * 31 + 1027; x ^= x >>> 7;
        x = x * 31 + 1028; x ^= x >>> 1;
        x = x * 31 + 1029; x ^= x >>> 2;
        return x;
    }

    static long calls(int[] x) {
        long s = 0;
        for (int i = 0; i < x.length; i += 64) {
            s += small(x[i]) + big(x[i]);
        }
        return s;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
        for (int i = 0; i < N; i++) {
            a[i] = i;
            b[i] = 2 * i;
        }
        long t = 0;
        for (int r = 0; r < rounds; r++) {
            add();
            t += calls(c);
        }
        System.out.println("WhatIf " + t);
    }
}
