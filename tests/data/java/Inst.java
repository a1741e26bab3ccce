// Instance methods, C2-compiled: their nmethods have an unverified entry (inline-cache check) before the verified one.
public class Inst {
    final int[] data;
    int bias;

    Inst(int n) {
        data = new int[n];
        for (int i = 0; i < n; i++) {
            data[i] = i * 3 + 1;
        }
        bias = 7;
    }

    int sum() {
        int s = 0;
        for (int i = 0; i < data.length; i++) {
            s += data[i] ^ bias;
        }
        return s;
    }

    int scaled(int k) {
        return sum() * k + bias;
    }

    public static void main(String[] args) {
        Inst x = new Inst(1000);
        long t = 0;
        for (int i = 0; i < 40000; i++) {
            t += x.scaled(i & 7);
        }
        System.out.println(t);
    }
}
