// profile-mismatch: C2 compiles hot() and callHot() against a warm-up's profile that the rest of the run does not
// keep to; their twins run the same code on data that keeps the warm-up's mix.
public class ProfileShift {
    static abstract class Shape { abstract int area(int x); }
    static final class Square extends Shape { int area(int x) { return x * x; } }
    static final class Rect extends Shape { int area(int x) { return x * (x + 3); } }
    static final class Tri extends Shape { int area(int x) { return (x * (x + 1)) >> 1; } }

    static final int[] sink = new int[64];

    // the profile saw `v < 0` on 4 trips in 16,384: C2 lays its side out of line; after the warm-up half the
    // values are negative.
    static int hot(int[] data) {
        int s = 0;
        for (int i = 0; i < data.length; i++) {
            int v = data[i];
            if (v < 0) { // FIND profile-mismatch branch
                sink[(v >>> 26) & 63] += v;
                s ^= v * 0x9E3779B1;
            } else {
                s += v;
            }
        }
        return s;
    }

    // twin: the same code, its data keeps the warm-up's 4 negatives in 16,384.
    static int twin(int[] data) {
        int s = 0;
        for (int i = 0; i < data.length; i++) {
            int v = data[i];
            if (v < 0) { // TWIN profile-mismatch branch
                sink[(v >>> 26) & 63] += v;
                s ^= v * 0x9E3779B1;
            } else {
                s += v;
            }
        }
        return s;
    }

    // the profile saw Square on 94% of the calls: C2 inlines it behind a type check and calls the others
    // virtually; after the warm-up every call is a Rect or a Tri.
    static int callHot(Shape[] shapes) {
        int s = 0;
        for (int i = 0; i < shapes.length; i++) {
            s += shapes[i].area(i); // FIND profile-mismatch call
        }
        return s;
    }

    // twin: the same code, its shapes keep the warm-up's mix.
    static int callTwin(Shape[] shapes) {
        int s = 0;
        for (int i = 0; i < shapes.length; i++) {
            s += shapes[i].area(i); // TWIN profile-mismatch call
        }
        return s;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4.0;
        int n = 1 << 14;
        int[] rare = new int[n], mixed = new int[n];
        Shape[] warm = new Shape[n], shifted = new Shape[n];
        long seed = 42;
        for (int i = 0; i < n; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            rare[i] = i % 4096 == 7 ? -1 - i : i;
            mixed[i] = (seed >>> 40 & 1) == 0 ? -1 - i : i;
            int k = (int) (seed >>> 33) % 100;
            warm[i] = k < 94 ? new Square() : k < 97 ? new Rect() : new Tri();
            shifted[i] = (seed >>> 41 & 1) == 0 ? new Rect() : new Tri();
        }
        long total = 0;
        for (int r = 0; r < 4000; r++) { // warm-up: C2 compiles all four against these profiles
            total += hot(rare) + twin(rare) + callHot(warm) + callTwin(warm);
        }
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < deadline) {
            for (int k = 0; k < 20; k++) {
                total += hot(mixed) + twin(rare) + callHot(shifted) + callTwin(warm);
            }
        }
        System.out.println(total);
    }
}
