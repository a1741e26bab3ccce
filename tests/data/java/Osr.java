// On-stack replacement: a long loop in main, and one in a method called once; run with -XX:TieredStopAtLevel=1
// the loops are compiled by C1 with an OSR entry.
public class Osr {
    static long once(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += (i ^ (s >>> 7)) * 31;
        }
        return s;
    }

    public static void main(String[] args) {
        long acc = 0;
        for (int i = 0; i < 3_000_000; i++) {
            acc += i % 7 == 0 ? acc >>> 3 : i;
        }
        acc += once(5_000_000);
        System.out.println(acc);
    }
}
