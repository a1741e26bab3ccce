// C1 code that touches classes loaded only after the method was compiled: C1 emits patching stubs
// (load_klass_patching, access_field_patching, load_mirror_patching) for those sites.
public class Patch {
    static int run(int i, Object o) {
        if (i < 30000) {
            return i & 3;
        }
        Late late = new Late();
        int v = late.x + Late.COUNT;
        if (o instanceof Later) {
            v += ((Later) o).y;
        }
        return v;
    }

    public static void main(String[] args) {
        long t = 0;
        Object o = args.length > 5 ? null : "x";
        for (int i = 0; i < 30000; i++) {
            t += run(i, o);
        }
        t += run(30000, new Later());
        System.out.println(t);
    }
}

class Late {
    static int COUNT = 5;
    int x = 2;
}

class Later {
    int y = 4;
}
