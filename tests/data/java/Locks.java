// lock-in-loop: hot() takes a shared monitor on every trip; twin() locks an object that never escapes,
// so escape analysis removes its lock.
public class Locks {
    static final Object SHARED = new Object();

    static int hot(int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            synchronized (SHARED) { // FIND lock-in-loop
                s += data[i];
            }
        }
        return s;
    }

    static int twin(int[] data, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            Object mine = new Object();
            synchronized (mine) { // TWIN lock-in-loop
                s += data[i];
            }
        }
        return s;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
        int n = 1 << 12;
        int[] data = new int[n];
        for (int i = 0; i < n; i++) data[i] = i * 31;
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long total = 0;
        while (System.nanoTime() < deadline) {
            total += hot(data, n);
            for (int k = 0; k < 4; k++) total += twin(data, n);
        }
        System.out.println("Locks: checksum " + total);
    }
}
