/* A method's Instructions made in C: part of the optional compiled build (setup.py).

instructions(rows, comments, record, fields, notes, frame, frame_fields) -> tuple

`MethodBuilder.build`'s loop: for each row `(address, mnemonic, operands, line)` of `rows`, the Instruction
`record` with those fields, its comment lines `comments[i]` joined as `MethodBuilder` joins them and read as
`annotations.read_notes` reads them (by this module's `notes`, with `frame` and `frame_fields`, or by `notes`
where that leaves the comment to Python), and the other fields at their defaults. `fields` holds the descriptors
of the record's eleven fields in order, each set as `make.maker` sets them (the descriptor's `__set__`), past the
frozen dataclass's `__setattr__`. The Python loop is the definition; this is a copy of it.

Both functions refuse with a TypeError, before reading anything, a record or frame class that cannot be instantiated
and a field that is not the slot or attribute descriptor of that class (a `member_descriptor` or
`getset_descriptor`, as `make.FIELD_DESCRIPTORS`), a row that is not a 4-tuple and a comment line that is not a str
(or whose `strip()` gives none). The rows are read from a snapshot of the list, and every object taken from a list
or dict is held while Python code (`notes`, a `strip()`, a key's `__eq__`) can run. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <ctype.h>
#include <string.h>

#define FIELDS 11
/* `numbers.MAX_DIGITS`: a longer run of digits is no bci or line number, and the scope pattern does not read it. */
#define MAX_DIGITS 20

typedef struct {
    PyTypeObject *record;
    PyObject **fields;
    PyObject *notes;
    PyObject *empty_text;
    PyObject *empty_tuple;
    PyObject *newline;
    PyObject *strip;
    PyObject *names[4];
    PyTypeObject *frame;
    PyObject **frame_fields;
    PyObject *by; /* `known_by` when the call started, held: `known` serves the call while it is still the same */
} Maker;

static PyObject *comment_notes(PyObject *text, PyTypeObject *frame, PyObject **frame_fields);

#define KNOWN 1024
/* Comments read so far, in any method, and what they say: comment -> (relocs, bytecode, frames,
implicit_target). The instructions of one bytecode print the same comment; emptied when it holds KNOWN, and when
a call reads with another frame class, frame fields or `notes` than `known_by` holds. */
static PyObject *known = NULL;
/* (frame, frame_fields, notes) of the comments `known` holds, or NULL. */
static PyObject *known_by = NULL;

/* 1 when `record` is a class that can be instantiated and `fields` a tuple of `count` of its slot or attribute
descriptors; 0 with a TypeError set otherwise. Such a descriptor's `__set__` checks its object's class. */
static int is_record(PyObject *record, PyObject *fields, Py_ssize_t count, const char *what)
{
    if (!PyType_Check(record) || !PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != count) {
        PyErr_Format(PyExc_TypeError, "a %s class and the tuple of its %zd field descriptors", what, count);
        return 0;
    }
    PyTypeObject *type = (PyTypeObject *)record;
    if (type->tp_new == NULL) {
        PyErr_Format(PyExc_TypeError, "cannot create '%s' instances", type->tp_name);
        return 0;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *field = PyTuple_GET_ITEM(fields, i);
        if ((!Py_IS_TYPE(field, &PyMemberDescr_Type) && !Py_IS_TYPE(field, &PyGetSetDescr_Type))
            || !PyType_IsSubtype(type, PyDescr_TYPE(field))) {
            PyErr_Format(PyExc_TypeError, "field %zd of %s is not a slot or attribute descriptor of the class", i,
                         type->tp_name);
            return 0;
        }
    }
    return 1;
}

/* Empty `known` unless it holds comments read with `frame`, `frame_fields` and `notes`; the `known_by` that says
so (a new reference), or NULL on error. */
static PyObject *know(PyObject *frame, PyObject *frame_fields, PyObject *notes)
{
    if (known_by != NULL && PyTuple_GET_ITEM(known_by, 0) == frame && PyTuple_GET_ITEM(known_by, 1) == frame_fields
        && PyTuple_GET_ITEM(known_by, 2) == notes) {
        return Py_NewRef(known_by);
    }
    PyObject *by = PyTuple_Pack(3, frame, frame_fields, notes);
    if (by == NULL) {
        return NULL;
    }
    Py_XSETREF(known_by, Py_NewRef(by));
    PyDict_Clear(known); /* may run a `__del__`, which may read with other classes: `by` is this call's */
    return by;
}

static PyObject *make(const Maker *m, PyObject *const values[FIELDS])
{
    PyObject *made = m->record->tp_new(m->record, m->empty_tuple, NULL);
    if (made == NULL) {
        return NULL;
    }
    for (int i = 0; i < FIELDS; i++) {
        if (Py_TYPE(m->fields[i])->tp_descr_set(m->fields[i], made, values[i]) < 0) {
            Py_DECREF(made);
            return NULL;
        }
    }
    return made;
}

/* The comment line `text` stripped by its own `strip()`, as a str; NULL with an error when it is no str. */
static PyObject *strip(const Maker *m, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "a comment line is a str, not %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    Py_INCREF(text); /* held while its `strip()` runs, which may change the list it is in */
    PyObject *stripped = PyObject_CallMethodNoArgs(text, m->strip);
    Py_DECREF(text);
    if (stripped == NULL || PyUnicode_CheckExact(stripped)) {
        return stripped;
    }
    PyObject *exact = PyUnicode_Check(stripped) ? PyUnicode_FromObject(stripped) : NULL;
    if (exact == NULL && !PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "a comment line's strip() gave a %.100s", Py_TYPE(stripped)->tp_name);
    }
    Py_DECREF(stripped);
    return exact;
}

/* The comment as `_noted` joins it: one line stripped, or the non-blank lines stripped and joined by newlines. */
static PyObject *joined(const Maker *m, PyObject *parts)
{
    if (PyList_GET_SIZE(parts) == 1) {
        return strip(m, PyList_GET_ITEM(parts, 0));
    }
    PyObject *kept = PyList_New(0);
    if (kept == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parts); i++) { /* a `strip()` may change the list */
        PyObject *part = strip(m, PyList_GET_ITEM(parts, i));
        if (part == NULL || (PyUnicode_GET_LENGTH(part) > 0 && PyList_Append(kept, part) < 0)) {
            Py_XDECREF(part);
            Py_DECREF(kept);
            return NULL;
        }
        Py_DECREF(part);
    }
    PyObject *text = PyUnicode_Join(m->newline, kept);
    Py_DECREF(kept);
    return text;
}

/* What `notes` (`annotations.read_notes`) reads in `comment`, as (relocs, bytecode, frames, implicit_target). */
static PyObject *python_notes(const Maker *m, PyObject *comment)
{
    PyObject *notes = PyObject_CallOneArg(m->notes, comment); /* may run any code: all used here is held */
    PyObject *got[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; notes != NULL && k < 4 && (k == 0 || got[k - 1] != NULL); k++) {
        got[k] = PyObject_GetAttr(notes, m->names[k]);
    }
    PyObject *read = got[3] != NULL ? PyTuple_Pack(4, got[0], got[1], got[2], got[3]) : NULL;
    for (int k = 0; k < 4; k++) {
        Py_XDECREF(got[k]);
    }
    Py_XDECREF(notes);
    return read;
}

/* The comment's (relocs, bytecode, frames, implicit_target): known, read here, or read by Python. */
static PyObject *read_comment(const Maker *m, PyObject *comment)
{
    PyObject *read = known_by == m->by ? PyDict_GetItemWithError(known, comment) : NULL;
    if (read != NULL) {
        Py_INCREF(read);
        return read;
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    read = comment_notes(comment, m->frame, m->frame_fields);
    if (read == Py_None) {
        Py_DECREF(read);
        read = python_notes(m, comment);
    }
    if (read == NULL) {
        return NULL;
    }
    /* Python code that ran (`notes`, a `__del__`) may have read with other classes and emptied `known` */
    if (known_by == m->by && PyDict_GET_SIZE(known) >= KNOWN) {
        PyDict_Clear(known);
    }
    if (known_by == m->by && PyDict_SetItem(known, comment, read) < 0) {
        Py_DECREF(read);
        return NULL;
    }
    return read;
}

/* The instruction of `row` whose comment lines are `parts` (NULL: none), both held by the caller. */
static PyObject *instruction(const Maker *m, PyObject *row, PyObject *parts)
{
    if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 4) {
        PyErr_SetString(PyExc_TypeError, "a row is (address, mnemonic, operands, line)");
        return NULL;
    }
    PyObject *values[FIELDS] = {
        PyTuple_GET_ITEM(row, 0), PyTuple_GET_ITEM(row, 1), PyTuple_GET_ITEM(row, 2), PyTuple_GET_ITEM(row, 3),
        m->empty_text, m->empty_tuple, m->empty_text, m->empty_tuple, Py_None, Py_None, Py_None,
    };
    if (parts == NULL) {
        return make(m, values);
    }
    if (!PyList_Check(parts)) {
        PyErr_SetString(PyExc_TypeError, "comment lines come as a list");
        return NULL;
    }
    PyObject *comment = joined(m, parts);
    PyObject *read = comment != NULL ? read_comment(m, comment) : NULL;
    PyObject *made = NULL;
    if (read != NULL) {
        values[4] = comment;
        for (int k = 0; k < 4; k++) {
            values[5 + k] = PyTuple_GET_ITEM(read, k);
        }
        made = make(m, values);
    }
    Py_XDECREF(comment);
    Py_XDECREF(read);
    return made;
}

/* The Instructions of `rows`, a tuple: a snapshot of the list, which the Python code that runs may change. */
static PyObject *build(Maker *m, PyObject *rows, PyObject *comments)
{
    Py_ssize_t count = PyTuple_GET_SIZE(rows);
    PyObject *made = PyTuple_New(count);
    if (made == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *parts = NULL;
        if (PyDict_GET_SIZE(comments) > 0) {
            PyObject *key = PyLong_FromSsize_t(i);
            if (key == NULL) {
                Py_DECREF(made);
                return NULL;
            }
            parts = PyDict_GetItemWithError(comments, key);
            Py_XINCREF(parts); /* held: reading it runs Python code, which may change `comments` */
            Py_DECREF(key);
            if (parts == NULL && PyErr_Occurred()) {
                Py_DECREF(made);
                return NULL;
            }
        }
        PyObject *one = instruction(m, PyTuple_GET_ITEM(rows, i), parts);
        Py_XDECREF(parts);
        if (one == NULL) {
            Py_DECREF(made);
            return NULL;
        }
        PyTuple_SET_ITEM(made, i, one);
    }
    return made;
}

static PyObject *instructions(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 7 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) || !PyCallable_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "instructions(rows: list, comments: dict, record: type, "
                                         "fields: 11 descriptors, notes: callable, frame: type, "
                                         "frame_fields: 3 descriptors)");
        return NULL;
    }
    if (!is_record(args[2], args[3], FIELDS, "record") || !is_record(args[5], args[6], 3, "frame")) {
        return NULL;
    }
    PyObject *by = know(args[5], args[6], args[4]);
    PyObject *rows = by != NULL ? PyList_AsTuple(args[0]) : NULL;
    if (rows == NULL) {
        Py_XDECREF(by);
        return NULL;
    }
    Maker m = {
        (PyTypeObject *)args[2], &PyTuple_GET_ITEM(args[3], 0), args[4], PyUnicode_New(0, 0), PyTuple_New(0),
        PyUnicode_FromString("\n"), PyUnicode_InternFromString("strip"),
        {PyUnicode_InternFromString("relocs"), PyUnicode_InternFromString("bytecode"),
         PyUnicode_InternFromString("frames"), PyUnicode_InternFromString("implicit_target")},
        (PyTypeObject *)args[5], &PyTuple_GET_ITEM(args[6], 0), by,
    };
    PyObject *made = NULL;
    if (m.empty_text != NULL && m.empty_tuple != NULL && m.newline != NULL && m.strip != NULL && m.names[0] != NULL
        && m.names[1] != NULL && m.names[2] != NULL && m.names[3] != NULL) {
        made = build(&m, rows, args[1]);
    }
    Py_DECREF(rows);
    Py_DECREF(m.by);
    Py_XDECREF(m.empty_text);
    Py_XDECREF(m.empty_tuple);
    Py_XDECREF(m.newline);
    Py_XDECREF(m.strip);
    for (int k = 0; k < 4; k++) {
        Py_XDECREF(m.names[k]);
    }
    return made;
}

/* `annotations.read_notes` in C, for comments of printable ASCII, tabs and newlines (None for any other, which
Python reads): notes(comment, frame, frame_fields) -> (relocs, bytecode, frames, implicit_target). */

static int plain(const Py_UCS1 *b, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((b[i] < 0x20 || b[i] > 0x7e) && b[i] != '\t' && b[i] != '\n') {
            return 0;
        }
    }
    return 1;
}

static int blank(Py_UCS1 c) { return c == ' ' || c == '\t'; }

/* The first position from `at` on that holds no blank, or `end`. */
static Py_ssize_t past_blanks(const Py_UCS1 *b, Py_ssize_t at, Py_ssize_t end)
{
    while (at < end && blank(b[at])) {
        at++;
    }
    return at;
}

/* Where `b[start:end]` ends without its trailing blanks. */
static Py_ssize_t before_blanks(const Py_UCS1 *b, Py_ssize_t start, Py_ssize_t end)
{
    while (end > start && blank(b[end - 1])) {
        end--;
    }
    return end;
}

/* The digits from `at` on, counted up to MAX_DIGITS + 1: a longer run is no number either way. */
static int digits(const Py_UCS1 *b, Py_ssize_t at, Py_ssize_t end)
{
    Py_ssize_t i = at;
    while (i < end && i - at <= MAX_DIGITS && b[i] >= '0' && b[i] <= '9') {
        i++;
    }
    return (int)(i - at);
}

static int starts(const Py_UCS1 *b, Py_ssize_t at, Py_ssize_t end, const char *text)
{
    Py_ssize_t n = (Py_ssize_t)strlen(text);
    return end - at >= n && memcmp(b + at, text, (size_t)n) == 0;
}

typedef struct {
    PyObject *text;
    const Py_UCS1 *b;
    PyObject *relocs, *frames, *bytecode, *implicit;
    PyTypeObject *frame;
    PyObject **frame_fields;
    PyObject *no_args;
    int fallback;
} Notes;

static PyObject *number(const Py_UCS1 *b, Py_ssize_t at, Py_ssize_t end, int base, Notes *n)
{
    if (end - at > 60) {
        n->fallback = 1;
        return NULL;
    }
    char buffer[64];
    memcpy(buffer, b + at, (size_t)(end - at));
    buffer[end - at] = 0;
    return PyLong_FromString(buffer, NULL, base);
}

/* `^-\s+(?:\(reexecute\)\s+)?(\S+?)@(-?\d+)(?:\s+\(line (\d+)\))?` from `name`: 1 matched, 0 not, -1 error. */
static int frame_at(Notes *n, Py_ssize_t name, Py_ssize_t end)
{
    const Py_UCS1 *b = n->b;
    for (Py_ssize_t at = name + 1; at < end && !blank(b[at - 1]); at++) {
        if (b[at] != '@') {
            continue;
        }
        Py_ssize_t bci = at + 1 + (at + 1 < end && b[at + 1] == '-' && digits(b, at + 2, end) > 0);
        int count = digits(b, bci, end);
        if (count == 0 || count > MAX_DIGITS) {
            continue;
        }
        Py_ssize_t after = bci + count, k = past_blanks(b, after, end);
        PyObject *line = Py_None;
        Py_INCREF(line);
        int line_digits = k > after && starts(b, k, end, "(line ") ? digits(b, k + 6, end) : 0;
        if (line_digits > 0 && line_digits <= MAX_DIGITS && k + 6 + line_digits < end &&
            b[k + 6 + line_digits] == ')') {
            Py_DECREF(line);
            line = number(b, k + 6, k + 6 + line_digits, 10, n);
        }
        PyObject *values[3] = {PyUnicode_Substring(n->text, name, at), number(b, at + 1, after, 10, n), line};
        int failed = values[0] == NULL || values[1] == NULL || values[2] == NULL;
        PyObject *made = failed ? NULL : n->frame->tp_new(n->frame, n->no_args, NULL);
        for (int i = 0; made != NULL && i < 3; i++) { /* descriptors `is_record` checked */
            if (Py_TYPE(n->frame_fields[i])->tp_descr_set(n->frame_fields[i], made, values[i]) < 0) {
                Py_CLEAR(made);
            }
        }
        for (int i = 0; i < 3; i++) {
            Py_XDECREF(values[i]);
        }
        if (made == NULL) {
            return -1;
        }
        failed = PyList_Append(n->frames, made);
        Py_DECREF(made);
        return failed ? -1 : 1;
    }
    return 0;
}

static int frame(Notes *n, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t at = past_blanks(n->b, start + 1, end);
    if (at == start + 1) {
        return 0;
    }
    if (starts(n->b, at, end, "(reexecute)") && at + 11 < end && blank(n->b[at + 11])) {
        int found = frame_at(n, past_blanks(n->b, at + 11, end), end);
        if (found != 0) {
            return found;
        }
    }
    return frame_at(n, at, end);
}

/* The text of `b[start:end]` without its blanks at either end. */
static PyObject *stripped(const Notes *n, Py_ssize_t start, Py_ssize_t end)
{
    start = past_blanks(n->b, start, end);
    return PyUnicode_Substring(n->text, start, before_blanks(n->b, start, end));
}

static int segment(Notes *n, Py_ssize_t start, Py_ssize_t end)
{
    const Py_UCS1 *b = n->b;
    if (b[start] == '{') {
        if (end - start < 2 || b[end - 1] != '}') {
            return 0;
        }
        PyObject *reloc = stripped(n, start + 1, end - 1);
        int failed = reloc == NULL || PyList_Append(n->relocs, reloc) < 0;
        Py_XDECREF(reloc);
        return failed ? -1 : 0;
    }
    if (b[start] == '*') {
        if (PyUnicode_GET_LENGTH(n->bytecode) > 0) {
            return 0;
        }
        Py_ssize_t e = start + 1;
        while (e < end && !starts(b, e, end, "{reexecute")) {
            e++;
        }
        PyObject *bytecode = stripped(n, start + 1, e);
        if (bytecode == NULL) {
            return -1;
        }
        Py_SETREF(n->bytecode, bytecode);
        return 0;
    }
    if (b[start] == '-') {
        return frame(n, start, end) < 0 ? -1 : 0;
    }
    if (n->implicit != Py_None) {
        return 0;
    }
    const char *lead = "implicit exception: dispatches to 0x";
    Py_ssize_t size = (Py_ssize_t)strlen(lead);
    for (Py_ssize_t at = start; at + size <= end; at++) {
        if (memcmp(b + at, lead, (size_t)size) != 0) {
            continue;
        }
        Py_ssize_t e = at + size;
        while (e < end && isxdigit(b[e])) {
            e++;
        }
        if (e == at + size || e - (at + size) > 16) { /* `numbers.HEX`: at most 64 bits, else no address */
            continue;
        }
        PyObject *address = number(b, at + size, e, 16, n);
        if (address == NULL) {
            return -1;
        }
        Py_SETREF(n->implicit, address);
        return 0;
    }
    return 0;
}

/* The segments of one comment line: split at each `;` at its start or after a blank, stripped, the empty
dropped. */
static int line_segments(Notes *n, Py_ssize_t start, Py_ssize_t end)
{
    const Py_UCS1 *b = n->b;
    Py_ssize_t from = start;
    for (Py_ssize_t at = start; at <= end; at++) {
        if (at < end && !(b[at] == ';' && (at == start || blank(b[at - 1])))) {
            continue;
        }
        Py_ssize_t s = past_blanks(b, from, at), e = before_blanks(b, s, at);
        if (e > s && segment(n, s, e) < 0) {
            return -1;
        }
        from = at + 1;
    }
    return 0;
}

/* The notes of the str `text` read with the class `frame` and its fields checked by `is_record`. */
static PyObject *comment_notes(PyObject *text, PyTypeObject *frame, PyObject **frame_fields)
{
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
#endif
    if (!PyUnicode_IS_ASCII(text) || !plain(PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text))) {
        Py_RETURN_NONE;
    }
    Notes n = {
        text, PyUnicode_1BYTE_DATA(text), PyList_New(0), PyList_New(0), PyUnicode_New(0, 0), Py_None,
        frame, frame_fields, PyTuple_New(0), 0,
    };
    Py_INCREF(Py_None);
    Py_ssize_t size = PyUnicode_GET_LENGTH(text), from = 0;
    int failed = n.relocs == NULL || n.frames == NULL || n.bytecode == NULL || n.no_args == NULL;
    for (Py_ssize_t at = 0; !failed && at <= size; at++) {
        if (at == size || n.b[at] == '\n') {
            failed = line_segments(&n, from, at) < 0;
            from = at + 1;
        }
    }
    PyObject *result = NULL;
    if (!failed) {
        PyObject *relocs = PyList_AsTuple(n.relocs), *frames = PyList_AsTuple(n.frames);
        if (relocs != NULL && frames != NULL) {
            result = PyTuple_Pack(4, relocs, n.bytecode, frames, n.implicit);
        }
        Py_XDECREF(relocs);
        Py_XDECREF(frames);
    } else if (n.fallback) {
        PyErr_Clear();
        result = Py_None;
        Py_INCREF(result);
    }
    Py_XDECREF(n.relocs);
    Py_XDECREF(n.frames);
    Py_XDECREF(n.bytecode);
    Py_XDECREF(n.implicit);
    Py_XDECREF(n.no_args);
    return result;
}

static PyObject *notes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "notes(comment: str, frame: type, frame_fields: 3 descriptors)");
        return NULL;
    }
    if (!is_record(args[1], args[2], 3, "frame")) {
        return NULL;
    }
    return comment_notes(args[0], (PyTypeObject *)args[1], &PyTuple_GET_ITEM(args[2], 0));
}

static PyMethodDef methods[] = {
    {"instructions", (PyCFunction)(void (*)(void))instructions, METH_FASTCALL,
     "The Instructions of a method's rows and comment lines, as `MethodBuilder.build` makes them."},
    {"notes", (PyCFunction)(void (*)(void))notes, METH_FASTCALL,
     "A comment's relocations, bytecode, frames and implicit-exception target, or None when Python reads it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_build", "A method's Instructions made in C (the optional compiled build).",
    -1, methods, NULL, NULL, NULL, NULL,
};

#include "_stamp.h"

PyMODINIT_FUNC PyInit__build(void)
{
    known = PyDict_New();
    return known == NULL ? NULL : stamped(PyModule_Create(&module));
}
