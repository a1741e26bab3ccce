/* A method's Instructions made in C: part of the optional compiled build (setup.py).

instructions(rows, comments, record, fields, notes) -> tuple

`MethodBuilder.build`'s loop: for each row `(address, mnemonic, operands, line)` of `rows`, the Instruction
`record` with those fields, its comment lines `comments[i]` joined as `MethodBuilder` joins them and read by
`notes` (`annotations.read_notes`), and the other fields at their defaults. `fields` holds the descriptors of the
record's eleven fields in order, each set as `make.maker` sets them (the descriptor's `__set__`), past the frozen
dataclass's `__setattr__`. The Python loop is the definition; this is a copy of it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define FIELDS 11

typedef struct {
    PyTypeObject *record;
    PyObject **fields;
    PyObject *notes;
    PyObject *empty_text;
    PyObject *empty_tuple;
    PyObject *newline;
    PyObject *strip;
} Maker;

static PyObject *make(const Maker *m, PyObject *const values[FIELDS])
{
    PyObject *made = m->record->tp_new(m->record, m->empty_tuple, NULL);
    if (made == NULL) {
        return NULL;
    }
    for (int i = 0; i < FIELDS; i++) {
        descrsetfunc set = Py_TYPE(m->fields[i])->tp_descr_set;
        if (set == NULL || set(m->fields[i], made, values[i]) < 0) {
            if (set == NULL) {
                PyErr_SetString(PyExc_TypeError, "a record field without a setter");
            }
            Py_DECREF(made);
            return NULL;
        }
    }
    return made;
}

static PyObject *strip(const Maker *m, PyObject *text) { return PyObject_CallMethodNoArgs(text, m->strip); }

/* The comment as `_noted` joins it: one line stripped, or the non-blank lines stripped and joined by newlines. */
static PyObject *joined(const Maker *m, PyObject *parts)
{
    Py_ssize_t count = PyList_GET_SIZE(parts);
    if (count == 1) {
        return strip(m, PyList_GET_ITEM(parts, 0));
    }
    PyObject *kept = PyList_New(0);
    if (kept == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
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

/* The instruction of `row` whose comment lines are `parts` (NULL: none). */
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
    if (comment == NULL) {
        return NULL;
    }
    PyObject *notes = PyObject_CallOneArg(m->notes, comment);
    PyObject *relocs = notes ? PyObject_GetAttrString(notes, "relocs") : NULL;
    PyObject *bytecode = relocs ? PyObject_GetAttrString(notes, "bytecode") : NULL;
    PyObject *frames = bytecode ? PyObject_GetAttrString(notes, "frames") : NULL;
    PyObject *implicit = frames ? PyObject_GetAttrString(notes, "implicit_target") : NULL;
    PyObject *made = NULL;
    if (implicit != NULL) {
        values[4] = comment;
        values[5] = relocs;
        values[6] = bytecode;
        values[7] = frames;
        values[8] = implicit;
        made = make(m, values);
    }
    Py_DECREF(comment);
    Py_XDECREF(notes);
    Py_XDECREF(relocs);
    Py_XDECREF(bytecode);
    Py_XDECREF(frames);
    Py_XDECREF(implicit);
    return made;
}

static PyObject *build(Maker *m, PyObject *rows, PyObject *comments)
{
    Py_ssize_t count = PyList_GET_SIZE(rows);
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
            Py_DECREF(key);
            if (parts == NULL && PyErr_Occurred()) {
                Py_DECREF(made);
                return NULL;
            }
        }
        PyObject *one = instruction(m, PyList_GET_ITEM(rows, i), parts);
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
    if (nargs != 5 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) || !PyType_Check(args[2])
        || !PyTuple_Check(args[3]) || PyTuple_GET_SIZE(args[3]) != FIELDS) {
        PyErr_SetString(PyExc_TypeError,
                        "instructions(rows: list, comments: dict, record: type, fields: 11 descriptors, notes)");
        return NULL;
    }
    Maker m = {
        (PyTypeObject *)args[2], &PyTuple_GET_ITEM(args[3], 0), args[4], PyUnicode_New(0, 0), PyTuple_New(0),
        PyUnicode_FromString("\n"), PyUnicode_InternFromString("strip"),
    };
    PyObject *made = NULL;
    if (m.empty_text != NULL && m.empty_tuple != NULL && m.newline != NULL && m.strip != NULL) {
        made = build(&m, args[0], args[1]);
    }
    Py_XDECREF(m.empty_text);
    Py_XDECREF(m.empty_tuple);
    Py_XDECREF(m.newline);
    Py_XDECREF(m.strip);
    return made;
}

static PyMethodDef methods[] = {
    {"instructions", (PyCFunction)(void (*)(void))instructions, METH_FASTCALL,
     "The Instructions of a method's rows and comment lines, as `MethodBuilder.build` makes them."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_build", "A method's Instructions made in C (the optional compiled build).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__build(void) { return PyModule_Create(&module); }
