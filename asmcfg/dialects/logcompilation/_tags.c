/* `logxml.tags` in C for the optional compiled build: the tags on one line of LogCompilation markup.

tags(text, tag, unescape) -> [tag(name, closing, empty, attrs), ...], or None for a line holding a character
outside ASCII, which Python reads. It finds what the two patterns of `logxml` find, `<(/?)([A-Za-z_][\w.:-]*)([^<>]*)>`
for a tag and `([\w.:-]+)\s*=\s*(?:'([^']*)'|"([^"]*)")` for each attribute in what follows the name, with ASCII's
word characters and blanks. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static int letter(Py_UCS1 c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

static int name_char(Py_UCS1 c) { return letter(c) || (c >= '0' && c <= '9') || c == '.' || c == ':' || c == '-'; }

/* `\s` of a str pattern, within ASCII. */
static int space(Py_UCS1 c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }

static Py_ssize_t past_space(const Py_UCS1 *b, Py_ssize_t at, Py_ssize_t end)
{
    while (at < end && space(b[at])) {
        at++;
    }
    return at;
}

/* The value `b[start:end]` of an attribute, its entities replaced by `unescape` when it holds any. */
static PyObject *value(PyObject *text, const Py_UCS1 *b, Py_ssize_t start, Py_ssize_t end, PyObject *unescape)
{
    PyObject *raw = PyUnicode_Substring(text, start, end);
    if (raw == NULL || memchr(b + start, '&', (size_t)(end - start)) == NULL) {
        return raw;
    }
    PyObject *replaced = PyObject_CallOneArg(unescape, raw);
    Py_DECREF(raw);
    return replaced;
}

/* Set the attributes found in `b[start:end]` (what follows a tag's name) into `attrs`; -1 on error. */
static int attributes(PyObject *text, const Py_UCS1 *b, Py_ssize_t start, Py_ssize_t end, PyObject *unescape,
                      PyObject *attrs)
{
    Py_ssize_t at = start;
    while (at < end) {
        if (!name_char(b[at])) {
            at++;
            continue;
        }
        /* a key is a whole run of name characters: a shorter one leaves some before the `=` */
        Py_ssize_t key = at, key_end = at;
        while (key_end < end && name_char(b[key_end])) {
            key_end++;
        }
        at = key_end;
        Py_ssize_t eq = past_space(b, key_end, end);
        if (eq >= end || b[eq] != '=') {
            continue;
        }
        Py_ssize_t quote = past_space(b, eq + 1, end);
        if (quote >= end || (b[quote] != '\'' && b[quote] != '"')) {
            continue;
        }
        const Py_UCS1 *close = memchr(b + quote + 1, b[quote], (size_t)(end - quote - 1));
        if (close == NULL) {
            continue;
        }
        Py_ssize_t close_at = close - b;
        PyObject *name = PyUnicode_Substring(text, key, key_end);
        PyObject *found = name == NULL ? NULL : value(text, b, quote + 1, close_at, unescape);
        int failed = found == NULL || PyDict_SetItem(attrs, name, found) < 0;
        Py_XDECREF(name);
        Py_XDECREF(found);
        if (failed) {
            return -1;
        }
        at = close_at + 1;
    }
    return 0;
}

/* The tag whose name is `b[name:name_end]`, closed by the `>` at `gt`. */
static PyObject *tag_at(PyObject *text, const Py_UCS1 *b, Py_ssize_t name, Py_ssize_t name_end, Py_ssize_t gt,
                        int closing, PyObject *tag, PyObject *unescape)
{
    PyObject *attrs = PyDict_New();
    if (attrs == NULL || attributes(text, b, name_end, gt, unescape, attrs) < 0) {
        Py_XDECREF(attrs);
        return NULL;
    }
    PyObject *args[4] = {PyUnicode_Substring(text, name, name_end), PyBool_FromLong(closing),
                         PyBool_FromLong(gt > name_end && b[gt - 1] == '/'), attrs};
    PyObject *made = args[0] == NULL ? NULL : PyObject_Vectorcall(tag, args, 4, NULL);
    for (int i = 0; i < 4; i++) {
        Py_XDECREF(args[i]);
    }
    return made;
}

static PyObject *tags(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "tags(text, tag, unescape)");
        return NULL;
    }
    PyObject *text = args[0];
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(text)) {
        Py_RETURN_NONE;
    }
    const Py_UCS1 *b = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *found = PyList_New(0);
    Py_ssize_t at = 0;
    while (found != NULL && at < n) {
        const Py_UCS1 *lt = memchr(b + at, '<', (size_t)(n - at));
        if (lt == NULL) {
            break;
        }
        at = lt - b + 1; /* where the search goes on when no tag starts here */
        Py_ssize_t name = at;
        int closing = name < n && b[name] == '/';
        name += closing;
        if (name >= n || !letter(b[name])) {
            continue;
        }
        Py_ssize_t name_end = name + 1;
        while (name_end < n && name_char(b[name_end])) {
            name_end++;
        }
        Py_ssize_t gt = name_end;
        while (gt < n && b[gt] != '<' && b[gt] != '>') {
            gt++;
        }
        if (gt >= n || b[gt] != '>') {
            continue;
        }
        PyObject *made = tag_at(text, b, name, name_end, gt, closing, args[1], args[2]);
        if (made == NULL || PyList_Append(found, made) < 0) {
            Py_XDECREF(made);
            Py_CLEAR(found);
            break;
        }
        Py_DECREF(made);
        at = gt + 1;
    }
    return found;
}

static PyMethodDef methods[] = {
    {"tags", (PyCFunction)(void (*)(void))tags, METH_FASTCALL,
     "The tags on one line of markup, as `logxml.tags` reads them, or None for a line it leaves to Python."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tags", "LogCompilation markup read in C (the optional compiled build).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__tags(void) { return PyModule_Create(&module); }
