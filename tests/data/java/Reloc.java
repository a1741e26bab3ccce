// Calls, type checks against class constants and a null-pointer throw, for the comments of [MachCode] hex dumps.
public class Reloc {
    abstract static class Animal { abstract int sound(int x); }
    static final class Dog extends Animal { int sound(int x) { return x + 1; } }
    static final class Cat extends Animal { int sound(int x) { return x * 3; } }
    static class Bird extends Animal { int sound(int x) { return x ^ 5; } }
    static final class Fish extends Bird { int sound(int x) { return x - 2; } }

    static int[] box = new int[1];

    static int helper(int x) { return x * 7 + 1; }

    static int work(Animal a, Dog d, Object o, int i) {
        int r = helper(i);                  // static call
        r += a.sound(i);                    // virtual call, four receivers
        r += d.sound(i);                    // optimized virtual call: Dog is final
        if (o instanceof Cat) {             // instanceof a final class
            r += ((Cat) o).sound(r);        // checkcast, optimized virtual call
        }
        if (o instanceof Bird) {            // instanceof a class with a subclass
            r += ((Bird) o).sound(i) + helper(r);
        }
        return r;
    }

    static int field(int[] a, int i) {
        return a[0] + i;                    // implicit null check: C1 throws from a stub
    }

    public static void main(String[] args) {
        Animal[] zoo = {new Dog(), new Cat(), new Bird(), new Fish()};
        Dog d = new Dog();
        long sum = 0;
        for (int i = 0; i < 200_000; i++) {
            Animal a = zoo[i & 3];
            sum += work(a, d, zoo[(i >> 2) & 3], i);
            sum += field(box, i);
        }
        try {
            sum += field(null, 1);
        } catch (NullPointerException e) {
            sum++;
        }
        System.out.println(sum);
    }
}
