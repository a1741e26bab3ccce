// C1 code with synchronized blocks, a class that needs initialization, and instanceof/checkcast.
public class Guard {
    static final Object LOCK = new Object();
    static int counter;
    static boolean ready;

    static final class Lazy {
        static int seed;
        static { seed = (int) (System.nanoTime() & 7) | 1; }
        final int v;
        Lazy(int v) { this.v = v * seed; }
    }

    static int run(Object o, int i) {
        int r;
        synchronized (LOCK) {               // monitorenter, monitorexit
            counter += i;
            r = counter;
        }
        if (o instanceof String) {          // instanceof
            r += ((String) o).length();     // checkcast
        }
        Integer n = (Integer) (o instanceof Integer ? o : null);  // checkcast of a possibly null value
        if (n != null) {
            r += n;
        }
        if (ready) {
            r += new Lazy(i).v;             // Lazy is not initialized when this is compiled
        }
        synchronized (o) {
            r ^= o.hashCode() & 1;
        }
        return r;
    }

    static int lockNew(int i) {
        Lazy l = new Lazy(i);               // the class constant goes to rdx
        synchronized (l) {                  // the lock-stack top is read into a register
            counter += l.v;
        }
        return counter;
    }

    static int lockCast(Object o, int i) {
        String s = (String) o;              // checkcast against a class constant
        synchronized (s) {
            counter += i;
        }
        return s.length();
    }

    public static void main(String[] args) {
        Object[] objs = {"ab", 7, new Object(), "xyz"};
        long sum = Lazy.class.getName().length();  // loads Lazy without initializing it
        for (int i = 0; i < 20_000; i++) {
            sum += run(objs[i & 3], i);
        }
        ready = true;
        for (int i = 0; i < 20_000; i++) {
            sum += run(objs[i & 3], i);
            sum += lockNew(i) + lockCast((i & 1) == 0 ? objs[0] : objs[3], i);
        }
        System.out.println(sum);
    }
}
