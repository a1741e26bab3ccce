// Compiled once implementing Icce.Shape, then recompiled as below without it (see Icce.java).
class Gone {
    public int area() { return 9; }
}
