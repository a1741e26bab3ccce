public class Main {
    interface Shape { int area(); }
    static final class Square implements Shape { final int s; Square(int s) { this.s = s; } public int area() { return s * s; } }
    static final class Rect implements Shape { final int w, h; Rect(int w, int h) { this.w = w; this.h = h; } public int area() { return w * h; } }
    static final class Tri implements Shape { final int b, h; Tri(int b, int h) { this.b = b; this.h = h; } public int area() { return b * h / 2; } }
    static final class Circle implements Shape { final int r; Circle(int r) { this.r = r; } public int area() { return 3 * r * r; } }

    static int rareCount;

    static int work(int[] a, Shape s, int i, int limit) {
        int v = a[i];
        v += s.area();
        if (v > limit) {
            rareCount++;
            v = -v;
        }
        return v;
    }

    static int kind(Object o) {
        if (o instanceof Square) return 1;
        if (o instanceof Rect) return 2;
        if (o instanceof Tri) return 3;
        return 0;
    }

    public static void main(String[] args) {
        long seconds = Long.parseLong(args[0]);
        int[] a = new int[64];
        for (int i = 0; i < a.length; i++) a[i] = i;
        Shape[] shapes = { new Square(3), new Rect(2, 5), new Tri(4, 6) };
        Object[] objects = { shapes[0], shapes[1], shapes[2], "x" };
        long sum = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        int n = 0;
        while (System.nanoTime() < end) {
            for (int k = 0; k < 100_000; k++, n = (n + 1) & 0xffffff) {
                sum += work(a, shapes[n % 3], n & 63, 1_000_000);
                sum += kind(objects[n & 3]);
            }
        }
        // the branch never taken during warm-up, then taken: its trap fires
        sum += work(a, shapes[0], 5, -1);
        // a class never seen: the type profile's guard fails
        sum += work(a, new Circle(2), 7, 1_000_000);
        System.out.println(sum + " " + rareCount);
    }
}
