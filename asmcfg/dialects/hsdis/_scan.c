/* The hsdis reader's commonest lines read in C: part of the optional compiled build (setup.py).

scan(texts, start, first, instructions, comments) -> int

`texts` is a list of lines, the first of them line number `first`, the others numbered on from it. From index
`start` on, while a line is an instruction line or a comment line that continues the last instruction, it does to
`instructions` and `comments` exactly what `MethodBuilder.add_instruction` and `MethodBuilder.add_comment` do, as
`Reader._feed` calls them inside a method's code. It returns the index of the first line it leaves to the Python
reader: any other line, and any line it cannot read the same way for certain (a character outside printable ASCII
and tab, a mnemonic with prefixes split by spaces, a text that could start or end a method). The Python reader is
the definition; this is a copy of its commonest branch.

`start` and `first` are ints and `comments` holds lists (a TypeError otherwise); a line whose number would not fit
a Py_ssize_t is left to Python. Each line is held while it is read: a key's `__eq__`, run by the look-ups in
`comments`, may change the list. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static int blank(Py_UCS1 c) { return c == ' ' || c == '\t'; }

static int at(const Py_UCS1 *b, Py_ssize_t i, Py_ssize_t n, const char *text)
{
    Py_ssize_t m = (Py_ssize_t)strlen(text);
    return n - i >= m && memcmp(b + i, text, (size_t)m) == 0;
}

/* 1 for a line of printable ASCII and tabs (then `str.strip()` and the regular expressions' `\s` mean space and
tab) without the texts `Reader._feed` tests for before it looks at an instruction: a method's start or banner,
raw hex. One pass over the line. */
static int ordinary(const Py_UCS1 *b, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS1 c = b[i];
        if ((c < 0x20 || c > 0x7e) && c != '\t') {
            return 0;
        }
        if ((c == 'C' && at(b, i, n, "Compiled method (")) || (c == 'D' && at(b, i, n, "Decoding compiled method"))
            || (c == '-' && at(b, i, n, "-compiled nmethod")) || (c == '[' && at(b, i, n, "[MachCode]"))) {
            return 0;
        }
    }
    return 1;
}

typedef struct {
    unsigned long long address;
    Py_ssize_t mnemonic[2], operands[2], comment[2];
} Parsed;

static void trim(const Py_UCS1 *b, Py_ssize_t span[2])
{
    while (span[0] < span[1] && blank(b[span[0]])) {
        span[0]++;
    }
    while (span[1] > span[0] && blank(b[span[1] - 1])) {
        span[1]--;
    }
}

static int hex_value(Py_UCS1 c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* 1 and `out` filled when the line is `0x<hex>:<blank>+<mnemonic>[<tab> operands][;comment]` as the Python reader
reads it, with no space-separated prefix to look up; 0 otherwise. */
static int instruction(const Py_UCS1 *b, Py_ssize_t n, Parsed *out)
{
    Py_ssize_t i = 0;
    while (i < n && blank(b[i])) {
        i++;
    }
    if (i + 2 > n || b[i] != '0' || b[i + 1] != 'x') {
        return 0;
    }
    Py_ssize_t j = i + 2;
    unsigned long long address = 0;
    while (j < n && hex_value(b[j]) >= 0) {
        if (j - (i + 2) == 16) {
            return 0;
        }
        address = address * 16 + (unsigned long long)hex_value(b[j]);
        j++;
    }
    if (j == i + 2 || j + 1 >= n || b[j] != ':' || !blank(b[j + 1])) {
        return 0;
    }
    Py_ssize_t k = j + 1;
    while (k < n && blank(b[k])) {
        k++;
    }
    if (k >= n || !((b[k] >= 'a' && b[k] <= 'z') || b[k] == '.')) {
        return 0;
    }
    const Py_UCS1 *semicolon = memchr(b + k, ';', (size_t)(n - k));
    Py_ssize_t text_end = semicolon ? (Py_ssize_t)(semicolon - b) : n;
    Py_ssize_t text[2] = {k, text_end};
    trim(b, text);
    const Py_UCS1 *tab = memchr(b + text[0], '\t', (size_t)(text[1] - text[0]));
    if (tab) {
        Py_ssize_t at = (Py_ssize_t)(tab - b);
        out->mnemonic[0] = text[0];
        out->mnemonic[1] = at;
        out->operands[0] = at + 1;
        out->operands[1] = text[1];
        trim(b, out->mnemonic);
        trim(b, out->operands);
    } else if (memchr(b + text[0], ' ', (size_t)(text[1] - text[0]))) {
        return 0;
    } else {
        out->mnemonic[0] = text[0];
        out->mnemonic[1] = text[1];
        out->operands[0] = out->operands[1] = text[1];
    }
    out->comment[0] = semicolon ? text_end + 1 : n;
    out->comment[1] = n;
    out->address = address;
    return 1;
}

/* The start of a continuation comment's text (after its blanks and semicolons), or -1 when the line is not one:
its first non-blank character is not `;`, or it starts with `;;`. */
static Py_ssize_t comment(const Py_UCS1 *b, Py_ssize_t n, Py_ssize_t *end)
{
    Py_ssize_t span[2] = {0, n};
    trim(b, span);
    if (span[1] - span[0] < 1 || b[span[0]] != ';' || (span[1] - span[0] > 1 && b[span[0] + 1] == ';')) {
        return -1;
    }
    Py_ssize_t k = span[0];
    while (k < span[1] && b[k] == ';') {
        k++;
    }
    *end = span[1];
    return k;
}

static int add_comment(PyObject *comments, Py_ssize_t index, PyObject *text)
{
    PyObject *key = PyLong_FromSsize_t(index);
    if (key == NULL) {
        return -1;
    }
    PyObject *found = PyDict_GetItemWithError(comments, key);
    int failed;
    if (found != NULL && !PyList_Check(found)) {
        PyErr_Format(PyExc_TypeError, "comments holds lists, not %.100s", Py_TYPE(found)->tp_name);
        failed = -1;
    } else if (found != NULL) {
        failed = PyList_Append(found, text);
    } else if (PyErr_Occurred()) {
        failed = -1;
    } else {
        PyObject *list = PyList_New(1);
        if (list == NULL) {
            Py_DECREF(key);
            return -1;
        }
        Py_INCREF(text);
        PyList_SET_ITEM(list, 0, text);
        failed = PyDict_SetItem(comments, key, list);
        Py_DECREF(list);
    }
    Py_DECREF(key);
    return failed;
}

static int add_instruction(PyObject *text, Py_ssize_t line, const Parsed *p, PyObject *instructions,
                           PyObject *comments)
{
    Py_ssize_t index = PyList_GET_SIZE(instructions);
    if (p->comment[1] > p->comment[0]) {
        PyObject *note = PyUnicode_Substring(text, p->comment[0], p->comment[1]);
        if (note == NULL) {
            return -1;
        }
        int failed = add_comment(comments, index, note);
        Py_DECREF(note);
        if (failed) {
            return -1;
        }
    }
    PyObject *address = PyLong_FromUnsignedLongLong(p->address);
    PyObject *mnemonic = PyUnicode_Substring(text, p->mnemonic[0], p->mnemonic[1]);
    PyObject *operands = PyUnicode_Substring(text, p->operands[0], p->operands[1]);
    PyObject *number = PyLong_FromSsize_t(line);
    PyObject *row = NULL;
    if (address != NULL && mnemonic != NULL && operands != NULL && number != NULL) {
        row = PyTuple_Pack(4, address, mnemonic, operands, number);
    }
    Py_XDECREF(address);
    Py_XDECREF(mnemonic);
    Py_XDECREF(operands);
    Py_XDECREF(number);
    if (row == NULL) {
        return -1;
    }
    int failed = PyList_Append(instructions, row);
    Py_DECREF(row);
    return failed;
}

/* 1 when the line was read, 0 when it is left to Python, -1 on an error. */
static int scan_line(PyObject *text, Py_ssize_t line, PyObject *instructions, PyObject *comments)
{
    if (!PyUnicode_Check(text)) {
        return 0;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        return -1;
    }
#endif
    if (!PyUnicode_IS_ASCII(text)) {
        return 0;
    }
    const Py_UCS1 *b = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (!ordinary(b, n)) {
        return 0;
    }
    Parsed parsed;
    if (instruction(b, n, &parsed)) {
        return add_instruction(text, line, &parsed, instructions, comments) ? -1 : 1;
    }
    Py_ssize_t end = 0;
    Py_ssize_t start = comment(b, n, &end);
    Py_ssize_t last = PyList_GET_SIZE(instructions) - 1;
    if (start < 0 || last < 0) {
        return 0;
    }
    PyObject *note = PyUnicode_Substring(text, start, end);
    if (note == NULL) {
        return -1;
    }
    int failed = add_comment(comments, last, note);
    Py_DECREF(note);
    return failed ? -1 : 1;
}

static PyObject *scan(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5 || !PyList_Check(args[0]) || !PyLong_Check(args[1]) || !PyLong_Check(args[2])
        || !PyList_Check(args[3]) || !PyDict_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "scan(texts: list, start: int, first: int, instructions: list, comments: dict)");
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(args[1]);
    if (i == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t first = PyLong_AsSsize_t(args[2]);
    if (first == -1 && PyErr_Occurred()) {
        return NULL;
    }
    /* the list is read afresh at each line, and the line held while it is read */
    for (; i >= 0 && i < PyList_GET_SIZE(args[0]) && first <= PY_SSIZE_T_MAX - i; i++) {
        PyObject *text = Py_NewRef(PyList_GET_ITEM(args[0], i));
        int read = scan_line(text, first + i, args[3], args[4]);
        Py_DECREF(text);
        if (read < 0) {
            return NULL;
        }
        if (read == 0) {
            break;
        }
    }
    return PyLong_FromSsize_t(i);
}

static PyMethodDef methods[] = {
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL,
     "Read the instruction and comment lines from `start` on; the index of the first line left to Python."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_scan", "The hsdis reader's commonest lines read in C (the optional compiled build).",
    -1, methods, NULL, NULL, NULL, NULL,
};

#include "../_stamp.h"

PyMODINIT_FUNC PyInit__scan(void) { return stamped(PyModule_Create(&module)); }
