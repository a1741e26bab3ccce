/* Two searches of the passes over a large file, in C: an optional speed-up that every build compiles when a C
compiler is at hand (setup.py). Both take any object with the buffer protocol (bytes, bytearray, a mapped file) and
read it where it is, without a copy and without the GIL (the buffer is held: a mapped file cannot be closed or
resized meanwhile). Their ranges are clamped to the buffer as a slice's are (a negative bound counts from the end).

newlines(buffer, start, stop) -> int
    The number of b'\n' bytes in buffer[start:stop] (`dialects/passes.py`; its Python fallback is `bytes.count`,
    which looks at a byte at a time where this looks at eight).

percent_blank(buffer, pos, endpos) -> int
    Where the first `%` followed by a byte `blank_start` accepts lies in buffer[pos:endpos] (both bytes in it), or -1:
    what `_HEAT.search(buffer, pos, endpos)` of `dialects/perfasm/saved.py` finds, a `find` of the `%`s (which
    the pattern's search looks for a byte at a time) and a table for the byte after. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
#define LOWS UINT64_C(0x7f7f7f7f7f7f7f7f)
#define NEWLINES (ONES * (uint64_t)'\n')
#define PAIRS UINT64_C(0x00ff00ff00ff00ff)
#define SHORTS UINT64_C(0x0001000100010001)

/* The newline bytes of an 8-byte word, each marked by its high bit: exact, since no byte carries into the next. */
static uint64_t marked(uint64_t word)
{
    uint64_t x = word ^ NEWLINES; /* a newline byte is now 0 */
    return ~(((x & LOWS) + LOWS) | x | LOWS) & HIGHS;
}

static Py_ssize_t count(const unsigned char *p, Py_ssize_t n)
{
    Py_ssize_t total = 0, i = 0;
    while (i + 8 * 255 <= n) { /* 255 words at most per round: a byte lane's sum stays below 256 */
        uint64_t lanes = 0;
        for (int k = 0; k < 255; k++, i += 8) {
            uint64_t word;
            memcpy(&word, p + i, 8);
            lanes += marked(word) >> 7;
        }
        uint64_t pairs = (lanes & PAIRS) + ((lanes >> 8) & PAIRS); /* four 16-bit lanes, each below 512 */
        total += (Py_ssize_t)((pairs * SHORTS) >> 48);
    }
    for (; i < n; i++) {
        total += p[i] == '\n';
    }
    return total;
}

/* The bytes `_HEAT` accepts after a `%`: what may start a blank in UTF-8 (`[\t-\r\x1c-\x20\xc2\xe1-\xe3]`). */
static int blank_start(unsigned char c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0xc2 || (c >= 0xe1 && c <= 0xe3);
}

static Py_ssize_t percent_at(const unsigned char *p, Py_ssize_t n)
{
    const unsigned char *at = p, *end = p + n;
    while (end - at >= 2 && (at = memchr(at, '%', (size_t)(end - at - 1))) != NULL) {
        if (blank_start(at[1])) {
            return at - p;
        }
        at++;
    }
    return -1;
}

/* Clamp [*start, *stop) to a buffer of `length` bytes, as a slice is. */
static void clamp(Py_ssize_t length, Py_ssize_t *start, Py_ssize_t *stop)
{
    if (*start < 0) {
        *start = *start + length < 0 ? 0 : *start + length;
    }
    if (*stop < 0) {
        *stop = *stop + length < 0 ? 0 : *stop + length;
    }
    if (*start > length) {
        *start = length;
    }
    if (*stop > length) {
        *stop = length;
    }
}

typedef Py_ssize_t (*Search)(const unsigned char *p, Py_ssize_t n);

/* Take (buffer, start, stop) as `format` names them and run `search` over the clamped range of the buffer without
the GIL: its result in *found (`empty` for an empty range), the clamped start in *start; -1 with an exception set
when the arguments are not so. */
static int searched(PyObject *args, const char *format, Search search, Py_ssize_t empty, Py_ssize_t *start,
                    Py_ssize_t *found)
{
    PyObject *source;
    Py_ssize_t stop;
    if (!PyArg_ParseTuple(args, format, &source, start, &stop)) {
        return -1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(source, &view, PyBUF_SIMPLE) < 0) {
        return -1;
    }
    clamp(view.len, start, &stop);
    Py_ssize_t result = empty;
    if (stop > *start) {
        const unsigned char *p = (const unsigned char *)view.buf + *start;
        Py_ssize_t n = stop - *start;
        Py_BEGIN_ALLOW_THREADS
        result = search(p, n);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    *found = result;
    return 0;
}

static PyObject *newlines(PyObject *self, PyObject *args)
{
    Py_ssize_t start, found;
    if (searched(args, "Onn:newlines", count, 0, &start, &found) < 0) {
        return NULL;
    }
    return PyLong_FromSsize_t(found);
}

static PyObject *percent_blank(PyObject *self, PyObject *args)
{
    Py_ssize_t start, found;
    if (searched(args, "Onn:percent_blank", percent_at, -1, &start, &found) < 0) {
        return NULL;
    }
    return PyLong_FromSsize_t(found < 0 ? -1 : start + found);
}

static PyMethodDef methods[] = {
    {"newlines", newlines, METH_VARARGS, "newlines(buffer, start, stop) -> the number of b'\\n' in buffer[start:stop]"},
    {"percent_blank", percent_blank, METH_VARARGS,
     "percent_blank(buffer, pos, endpos) -> where the first '%' before a blank's first byte lies, or -1"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_lines", NULL, -1, methods};

PyMODINIT_FUNC PyInit__lines(void)
{
    return PyModule_Create(&module);
}
