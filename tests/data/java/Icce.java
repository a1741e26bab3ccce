// An invokeinterface on an object whose class no longer implements the interface (separate compilation:
// Icce$Gone implemented Icce.Shape when this file was compiled, then was recompiled without it). C1 inlines the
// only implementor, Icce$Square::area, behind a check that throws IncompatibleClassChangeError.
public class Icce {
    interface Shape { int area(); }

    static final class Square implements Shape {
        public int area() { return 4; }
    }

    static int measure(Shape s) {
        return s.area();
    }

    public static void main(String[] args) {
        Shape square = new Square();
        Shape gone = new Gone();
        long acc = 0, thrown = 0;
        for (int i = 0; i < 200_000; i++) {
            try {
                acc += measure(i % 1000 == 999 ? gone : square);
            } catch (IncompatibleClassChangeError e) {
                thrown++;
            }
        }
        System.out.println(acc + " " + thrown);
    }
}
