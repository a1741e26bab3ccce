/* Records made and copied in C: part of the optional compiled build (setup.py).

maker(record, fields) -> a callable that makes a `record` from every field given positionally, in order, as
`make.maker`'s generated function does: the record's `__new__`, then each field set through its descriptor
(`fields`, in order), past the frozen dataclass's `__setattr__`.

copy(record, fields, names, changes) -> a copy of `record` with the fields `changes` names replaced, as
`factory.replace` makes it; the names it used are removed from `changes`, so what is left names no field.

Both refuse with a TypeError, before making anything, a record class that cannot be instantiated and a field that is
not the slot or attribute descriptor of that class (a `member_descriptor` or `getset_descriptor`, as
`make.FIELD_DESCRIPTORS`), so that each field is read and set only through a descriptor that checks its object. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

typedef struct {
    PyObject_HEAD
    PyTypeObject *record;
    PyObject *fields;
    vectorcallfunc vectorcall;
} Maker;

static PyObject *no_args;

/* 1 when `record` is a class that can be instantiated and `fields` a tuple of its slot or attribute descriptors;
0 with a TypeError set otherwise. */
static int is_record(PyObject *record, PyObject *fields)
{
    if (!PyType_Check(record) || !PyTuple_Check(fields)) {
        PyErr_SetString(PyExc_TypeError, "a record class and the tuple of its field descriptors");
        return 0;
    }
    PyTypeObject *type = (PyTypeObject *)record;
    if (type->tp_new == NULL) {
        PyErr_Format(PyExc_TypeError, "cannot create '%s' instances", type->tp_name);
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fields); i++) {
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

/* Set a field checked by `is_record`: its descriptor checks `made` is an instance of its class. */
static int set_field(PyObject *field, PyObject *made, PyObject *value)
{
    return Py_TYPE(field)->tp_descr_set(field, made, value);
}

static PyObject *make(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Maker *m = (Maker *)self;
    Py_ssize_t count = PyVectorcall_NARGS(nargsf);
    Py_ssize_t fields = PyTuple_GET_SIZE(m->fields);
    if ((kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) || count != fields) {
        PyErr_Format(PyExc_TypeError, "%s takes its %zd fields, in order, and no keywords", m->record->tp_name,
                     fields);
        return NULL;
    }
    PyObject *made = m->record->tp_new(m->record, no_args, NULL);
    for (Py_ssize_t i = 0; made != NULL && i < fields; i++) {
        if (set_field(PyTuple_GET_ITEM(m->fields, i), made, args[i]) < 0) {
            Py_CLEAR(made);
        }
    }
    return made;
}

static void maker_dealloc(PyObject *self)
{
    Maker *m = (Maker *)self;
    PyObject_GC_UnTrack(self);
    Py_XDECREF(m->record);
    Py_XDECREF(m->fields);
    PyObject_GC_Del(self);
}

static int maker_traverse(PyObject *self, visitproc visit, void *arg)
{
    Maker *m = (Maker *)self;
    Py_VISIT(m->record);
    Py_VISIT(m->fields);
    return 0;
}

static PyTypeObject MakerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asmcfg.model._make.Maker",
    .tp_basicsize = sizeof(Maker),
    .tp_dealloc = maker_dealloc,
    .tp_vectorcall_offset = offsetof(Maker, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Makes a record from every field given positionally, in order.",
    .tp_traverse = maker_traverse,
};

static PyObject *maker(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !is_record(args[0], args[1])) {
        if (nargs != 2) {
            PyErr_SetString(PyExc_TypeError, "maker(record, fields)");
        }
        return NULL;
    }
    Maker *m = PyObject_GC_New(Maker, &MakerType);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(args[0]);
    Py_INCREF(args[1]);
    m->record = (PyTypeObject *)args[0];
    m->fields = args[1];
    m->vectorcall = make;
    PyObject_GC_Track((PyObject *)m);
    return (PyObject *)m;
}

static PyObject *copy(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4 || !is_record((PyObject *)Py_TYPE(args[0]), args[1]) || !PyTuple_Check(args[2])
        || PyTuple_GET_SIZE(args[2]) != PyTuple_GET_SIZE(args[1]) || !PyDict_Check(args[3])) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "copy(record, fields, names, changes)");
        }
        return NULL;
    }
    PyObject *record = args[0], *fields = args[1], *names = args[2], *changes = args[3];
    /* kept: a key's `__eq__` run by the look-ups in `changes` may give `record` another class */
    PyTypeObject *type = (PyTypeObject *)Py_NewRef(Py_TYPE(record));
    PyObject *made = type->tp_new(type, no_args, NULL);
    for (Py_ssize_t i = 0; made != NULL && i < PyTuple_GET_SIZE(fields); i++) {
        PyObject *field = PyTuple_GET_ITEM(fields, i);
        PyObject *value = PyDict_GetItemWithError(changes, PyTuple_GET_ITEM(names, i));
        if (value != NULL) {
            Py_INCREF(value);
            if (PyDict_DelItem(changes, PyTuple_GET_ITEM(names, i)) < 0) {
                Py_CLEAR(value);
            }
        } else if (!PyErr_Occurred()) {
            value = Py_TYPE(field)->tp_descr_get(field, record, (PyObject *)type);
        }
        if (value == NULL || set_field(field, made, value) < 0) {
            Py_CLEAR(made);
        }
        Py_XDECREF(value);
    }
    Py_DECREF(type);
    return made;
}

static PyMethodDef methods[] = {
    {"maker", (PyCFunction)(void (*)(void))maker, METH_FASTCALL,
     "A callable that makes a `record` from every field given positionally, in order."},
    {"copy", (PyCFunction)(void (*)(void))copy, METH_FASTCALL,
     "A copy of `record` with the fields `changes` names replaced; the names used leave `changes`."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_make", "Records made and copied in C (the optional compiled build).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__make(void)
{
    if (PyType_Ready(&MakerType) < 0) {
        return NULL;
    }
    no_args = PyTuple_New(0);
    if (no_args == NULL) {
        return NULL;
    }
    return PyModule_Create(&module);
}
