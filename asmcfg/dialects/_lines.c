/* Two searches of the passes over a large file, in C: an optional speed-up that every build compiles when a C
compiler is at hand (setup.py). Both take any object with the buffer protocol (bytes, bytearray, a mapped file) and
read it where it is, without a copy and without the GIL (the buffer is held: a mapped file cannot be closed or
resized meanwhile). Their ranges are clamped to the buffer as a slice's are (a negative bound counts from the end).

newlines(buffer, start, stop) -> int
    The number of b'\n' bytes in buffer[start:stop] (`dialects/passes.py`; its Python fallback is `bytes.count`,
    which looks at a byte at a time where this looks at eight).

block_newlines(buffer, start, stop, block) -> list[int]
    The number of b'\n' bytes in each `block` bytes of buffer[start:stop], from `start` (the last one shorter):
    `[newlines(buffer, at, min(at + block, stop)) for at in range(start, stop, block)]` of the clamped range, in one
    call (`dialects/numbering.py`, which numbers the lines of a listing from them).

find_all(buffer, needle, start, stop, end) -> list[int]
    Where `needle` (not empty) starts before `stop`, searched in buffer[start:end] (a slice's bounds), each found
    after the end of the one before: the loop of `buf.find(needle, at + len(needle), end)` of `dialects/index.py`
    (the index's search for headers), with glibc's `memmem` where `find` compares a byte at a time.

percent_blank(buffer, pos, endpos) -> int
    Where the first `%` followed by a byte `blank_start` accepts lies in buffer[pos:endpos] (both bytes in it), or -1:
    what `_HEAT.search(buffer, pos, endpos)` of `dialects/perfasm/saved.py` finds, a `find` of the `%`s (which
    the pattern's search looks for a byte at a time) and a table for the byte after. */

#define _GNU_SOURCE /* memmem */
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

static PyObject *block_newlines(PyObject *self, PyObject *args)
{
    PyObject *source;
    Py_ssize_t start, stop, block;
    if (!PyArg_ParseTuple(args, "Onnn:block_newlines", &source, &start, &stop, &block)) {
        return NULL;
    }
    if (block <= 0) {
        PyErr_SetString(PyExc_ValueError, "block_newlines: the block must be at least one byte");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(source, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    clamp(view.len, &start, &stop);
    Py_ssize_t n = stop > start ? (stop - start - 1) / block + 1 : 0;
    Py_ssize_t *found = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n ? n : 1));
    if (found == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    const unsigned char *p = (const unsigned char *)view.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t at = start + k * block;
        found[k] = count(p + at, stop - at < block ? stop - at : block);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    PyObject *list = PyList_New(n);
    for (Py_ssize_t k = 0; list != NULL && k < n; k++) {
        PyObject *number = PyLong_FromSsize_t(found[k]);
        if (number == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, k, number);
    }
    PyMem_Free(found);
    return list;
}

static PyObject *find_all(PyObject *self, PyObject *args)
{
    PyObject *source;
    Py_buffer needle;
    Py_ssize_t start, stop, end;
    if (!PyArg_ParseTuple(args, "Oy*nnn:find_all", &source, &needle, &start, &stop, &end)) {
        return NULL;
    }
    if (needle.len == 0) {
        PyBuffer_Release(&needle);
        PyErr_SetString(PyExc_ValueError, "find_all: an empty needle");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(source, &view, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&needle);
        return NULL;
    }
    PyObject *found = PyList_New(0);
    clamp(view.len, &start, &end); /* `stop` is compared as given, as the loop compares it */
    const char *p = view.buf;
    Py_ssize_t at = start;
    while (found != NULL && at < stop && end - at >= needle.len) {
        const char *hit = memmem(p + at, (size_t)(end - at), needle.buf, (size_t)needle.len);
        if (hit == NULL || hit - p >= stop) {
            break;
        }
        PyObject *number = PyLong_FromSsize_t(hit - p);
        if (number == NULL || PyList_Append(found, number) < 0) {
            Py_XDECREF(number);
            Py_CLEAR(found);
            break;
        }
        Py_DECREF(number);
        at = hit - p + needle.len;
    }
    PyBuffer_Release(&view);
    PyBuffer_Release(&needle);
    return found;
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
    {"block_newlines", block_newlines, METH_VARARGS,
     "block_newlines(buffer, start, stop, block) -> the number of b'\\n' in each `block` bytes of buffer[start:stop]"},
    {"find_all", find_all, METH_VARARGS,
     "find_all(buffer, needle, start, stop, end) -> where needle starts in buffer[start:stop], searched to end"},
    {"percent_blank", percent_blank, METH_VARARGS,
     "percent_blank(buffer, pos, endpos) -> where the first '%' before a blank's first byte lies, or -1"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_lines", NULL, -1, methods};

#include "_stamp.h"

PyMODINIT_FUNC PyInit__lines(void)
{
    return stamped(PyModule_Create(&module));
}
