package asmcfg.jmh;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One benchmark with one obvious hot loop over an int array of random signs: positive elements are
 * added, the others subtract an eighth of their value (a data-dependent branch). One call takes a few
 * microseconds, so JMH's generated stub loop is compiled too, with this method inlined into it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SumBench {
    int[] data;

    @Setup
    public void setup() {
        Random random = new Random(42);
        data = new int[4096];
        for (int i = 0; i < data.length; i++) {
            data[i] = random.nextInt(2001) - 1000;
        }
    }

    @Benchmark
    public long sumPositive() {
        long sum = 0;
        int[] a = data;
        for (int i = 0; i < a.length; i++) {
            int v = a[i];
            if (v > 0) {
                sum += v;
            } else {
                sum -= v >> 3;
            }
        }
        return sum;
    }
}
