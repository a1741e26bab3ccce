// A synchronized instance method called in a loop; run with -XX:TieredStopAtLevel=1 C1 compiles it with
// monitor enter and exit fast paths and their out-of-line slow paths.
public class Sync {
    private int count;

    synchronized int bump(int by) {
        count += by;
        return count;
    }

    public static void main(String[] args) {
        Sync s = new Sync();
        long acc = 0;
        for (int i = 0; i < 200_000; i++) {
            acc += s.bump(i & 3);
        }
        System.out.println(acc);
    }
}
