// deopt-cycle: hot() meets a new receiver type in each phase and is compiled again each time;
// its twin twin() runs as long on the same code but always sees one receiver type.
public class Deopts {
    static abstract class Shape { abstract double area(); }
    static final class Square extends Shape { final double s; Square(double s) { this.s = s; } double area() { return s * s; } }
    static final class Circle extends Shape { final double r; Circle(double r) { this.r = r; } double area() { return 3.14159 * r * r; } }
    static final class Tri extends Shape { final double b, h; Tri(double b, double h) { this.b = b; this.h = h; } double area() { return 0.5 * b * h; } }
    static final class Hex extends Shape { final double a; Hex(double a) { this.a = a; } double area() { return 2.598 * a * a; } }

    static double hot(Shape[] shapes) {
        double sum = 0;
        for (int i = 0; i < shapes.length; i++) {
            sum += shapes[i].area(); // FIND deopt-cycle
        }
        return sum;
    }

    static double twin(Shape[] shapes) {
        double sum = 0;
        for (int i = 0; i < shapes.length; i++) {
            sum += shapes[i].area(); // TWIN deopt-cycle
        }
        return sum;
    }

    static Shape[] phase(int kinds, int n) {
        Shape[] shapes = new Shape[n];
        for (int i = 0; i < n; i++) {
            int k = i % kinds;
            shapes[i] = k == 0 ? new Square(i) : k == 1 ? new Circle(i) : k == 2 ? new Tri(i, 2) : new Hex(i);
        }
        return shapes;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4.0;
        int n = 4096;
        Shape[] same = phase(1, n);
        double total = 0;
        for (int kinds = 1; kinds <= 4; kinds++) {
            Shape[] shapes = phase(kinds, n);
            long deadline = System.nanoTime() + (long) (seconds / 4 * 1e9);
            while (System.nanoTime() < deadline) {
                total += hot(shapes) + twin(same);
            }
        }
        System.out.println("Deopts: checksum " + total);
    }
}
