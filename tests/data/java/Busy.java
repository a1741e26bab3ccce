import java.util.*;
import java.util.stream.*;
import java.util.regex.*;
import java.math.BigInteger;
import java.time.*;

public class Busy {
    static int sum(int[] a) {
        int s = 0;
        for (int x : a) {
            s += x;
        }
        return s;
    }

    public static void main(String[] args) {
        long t = 0;
        for (int r = 0; r < 3000; r++) {
            List<String> words = IntStream.range(0, 200).mapToObj(i -> "w" + (i * 31 % 97)).collect(Collectors.toList());
            Map<String, Integer> counts = new TreeMap<>();
            for (String w : words) counts.merge(w, 1, Integer::sum);
            t += String.join(",", counts.keySet()).hashCode();
            t += String.format("%d-%s", r, words.get(r % 200)).length();
            t += Pattern.compile("w(\\d+)").matcher(String.join(" ", words)).results().count();
            t += BigInteger.valueOf(r).pow(20).mod(BigInteger.valueOf(1_000_003)).longValue();
            t += LocalDate.of(2020, 1, 1).plusDays(r).getDayOfWeek().ordinal();
            t += new HashSet<>(words).size() + new ArrayDeque<>(words).size() + new LinkedList<>(words).indexOf("w5");
            t += words.stream().collect(Collectors.groupingBy(String::length)).size();
            t += Arrays.stream(words.toArray(new String[0])).sorted().filter(s -> s.contains("1")).count();
        }
        int[] a = new int[1000];
        for (int r = 0; r < 200000; r++) t += sum(a);
        System.out.println(t);
    }
}
