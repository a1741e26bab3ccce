/* `logxml.tags` and `inline.collect` in C for the optional compiled build: the tags on one line of LogCompilation
markup, and the tags of a compiler task that the trap and inlining collectors follow.

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
    (void)module;
    if (nargs != 3 || !PyUnicode_Check(args[0]) || !PyCallable_Check(args[1]) || !PyCallable_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "tags(text: str, tag: callable, unescape: callable)");
        return NULL;
    }
    PyObject *text = args[0]; /* held by the caller: `b` stays valid while `tag` and `unescape` run */
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
#endif
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

/* `inline.collect` in C: collect(data, number, start, stop, tags, feeds) -> the number of the last line.

Each line part that `inline._TAG` finds in `data[start:stop]` (a tag either collector follows, from its `<` to
the end of its line) is decoded and read by `tags`, and each of its tags goes to the callables `feeds` holds for
its name, with the number of its line (line `number` ends just before `start`). */

static const char *const FOLLOWED[] = {
    "task", "/task", "klass", "method", "parse", "/parse", "uncommon_trap", "/uncommon_trap", "jvms", "bc", "call",
    "inline_success", "inline_fail", "intrinsic", "late_inline", "/late_inline", "branch",
};

/* True when a followed name and one of ` \t/>` start at `at` (just past a `<`), before `end`. */
static int followed(const char *b, Py_ssize_t at, Py_ssize_t end)
{
    for (size_t i = 0; i < sizeof FOLLOWED / sizeof FOLLOWED[0]; i++) {
        Py_ssize_t n = (Py_ssize_t)strlen(FOLLOWED[i]);
        if (at + n < end && memcmp(b + at, FOLLOWED[i], (size_t)n) == 0 &&
            (b[at + n] == ' ' || b[at + n] == '\t' || b[at + n] == '/' || b[at + n] == '>')) {
            return 1;
        }
    }
    return 0;
}

static Py_ssize_t newlines(const char *b, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t count = 0;
    for (const char *at = b + start, *stop = b + end; (at = memchr(at, '\n', (size_t)(stop - at))) != NULL; at++) {
        count++;
    }
    return count;
}

/* Hand `tag` to the feeds `feeds` holds for its name; -1 on error. */
static int feed(PyObject *tag, PyObject *feeds, PyObject *line, PyObject *name_attr)
{
    PyObject *name = PyObject_GetAttr(tag, name_attr);
    PyObject *targets = name == NULL ? NULL : PyDict_GetItemWithError(feeds, name);
    Py_XINCREF(targets); /* held: the feeds may change `feeds` */
    Py_XDECREF(name);
    if (targets == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    int failed = 0;
    if (!PyTuple_Check(targets)) {
        PyErr_Format(PyExc_TypeError, "feeds holds tuples of callables, not %.100s", Py_TYPE(targets)->tp_name);
        failed = -1;
    }
    PyObject *args[2] = {tag, line};
    for (Py_ssize_t j = 0; !failed && j < PyTuple_GET_SIZE(targets); j++) {
        PyObject *done = PyObject_Vectorcall(PyTuple_GET_ITEM(targets, j), args, 2, NULL);
        failed = done == NULL ? -1 : 0;
        Py_XDECREF(done);
    }
    Py_DECREF(targets);
    return failed;
}

/* Hand each tag of the list `found` to the feeds of its name; -1 on error. The list is read afresh at each tag and
the tag held while Python code (its `name`, the feeds) runs. */
static int feed_all(PyObject *found, PyObject *feeds, PyObject *line, PyObject *name_attr)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(found); i++) {
        PyObject *tag = Py_NewRef(PyList_GET_ITEM(found, i));
        int failed = feed(tag, feeds, line, name_attr);
        Py_DECREF(tag);
        if (failed) {
            return -1;
        }
    }
    return 0;
}

/* Read and feed the tags of the match `b[start:end]`, on line `line`; -1 on error. */
static int collect_match(const char *b, Py_ssize_t start, Py_ssize_t end, Py_ssize_t line, PyObject *tags_of,
                         PyObject *feeds, PyObject *name_attr)
{
    PyObject *text = PyUnicode_DecodeUTF8(b + start, end - start, "replace");
    PyObject *found = text == NULL ? NULL : PyObject_CallOneArg(tags_of, text);
    PyObject *number = found == NULL ? NULL : PyLong_FromSsize_t(line);
    int failed = number == NULL || !PyList_Check(found) || feed_all(found, feeds, number, name_attr) < 0;
    if (found != NULL && !PyList_Check(found) && !PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "tags must give a list");
    }
    Py_XDECREF(text);
    Py_XDECREF(found);
    Py_XDECREF(number);
    return failed ? -1 : 0;
}

static PyObject *collect(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6 || !PyLong_Check(args[1]) || !PyLong_Check(args[2]) || !PyLong_Check(args[3])
        || !PyCallable_Check(args[4]) || !PyDict_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError,
                        "collect(data, number: int, start: int, stop: int, tags: callable, feeds: dict)");
        return NULL;
    }
    Py_ssize_t values[3];
    for (int i = 0; i < 3; i++) {
        values[i] = PyLong_AsSsize_t(args[1 + i]);
        if (values[i] == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    Py_ssize_t number = values[0], start = values[1], stop = values[2];
    if (start < 0 || stop < 0) {
        PyErr_SetString(PyExc_ValueError, "start and stop are offsets into data, not counted from its end");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    /* the buffer is held until the end: a bytearray cannot be resized while the feeds run */
    const char *b = view.buf;
    stop = stop > view.len ? view.len : stop;
    if (number > PY_SSIZE_T_MAX - 1 - stop) { /* each line number is at most number + 1 + the newlines counted */
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_OverflowError, "line numbers past the largest Py_ssize_t");
        return NULL;
    }
    PyObject *name_attr = PyUnicode_InternFromString("name");
    Py_ssize_t at = start, done = at, line = number + 1;
    int failed = name_attr == NULL;
    while (!failed && at < stop) {
        const char *lt = memchr(b + at, '<', (size_t)(stop - at));
        if (lt == NULL) {
            break;
        }
        Py_ssize_t match = lt - b;
        if (!followed(b, match + 1, stop)) {
            at = match + 1;
            continue;
        }
        const char *newline = memchr(lt, '\n', (size_t)(stop - match));
        Py_ssize_t end = newline == NULL ? stop : newline - b;
        line += newlines(b, done, match);
        done = match;
        failed = collect_match(b, match, end, line, args[4], args[5], name_attr) < 0;
        at = end;
    }
    Py_ssize_t last = number + (start < stop ? newlines(b, start, stop) : 0);
    PyBuffer_Release(&view);
    Py_XDECREF(name_attr);
    return failed ? NULL : PyLong_FromSsize_t(last);
}

static PyMethodDef methods[] = {
    {"tags", (PyCFunction)(void (*)(void))tags, METH_FASTCALL,
     "The tags on one line of markup, as `logxml.tags` reads them, or None for a line it leaves to Python."},
    {"collect", (PyCFunction)(void (*)(void))collect, METH_FASTCALL,
     "Feed the followed tags of data[start:stop] to their feeds, as `inline.collect` does; the last line's number."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tags", "LogCompilation markup read in C (the optional compiled build).",
    -1, methods, NULL, NULL, NULL, NULL,
};

#include "../_stamp.h"

PyMODINIT_FUNC PyInit__tags(void) { return stamped(PyModule_Create(&module)); }
