/* What every C module of setup.py's SPEEDUPS ends its PyInit with: the module stamped with SOURCE, the digest of
   the C file it was built from, which setup.py defines as ASMCFG_SOURCE and `asmcfg.model.make.compiled` compares
   with the file beside the module (one built from an older file, left in a checkout that moved on, is not used:
   its Python twin does the work). Included once by each module, after Python.h. */

#ifndef ASMCFG_STAMP_H
#define ASMCFG_STAMP_H

#ifndef ASMCFG_SOURCE
#define ASMCFG_SOURCE ""
#endif

static PyObject *stamped(PyObject *made)
{
    if (made != NULL && PyModule_AddStringConstant(made, "SOURCE", ASMCFG_SOURCE) < 0) {
        Py_DECREF(made);
        return NULL;
    }
    return made;
}

#endif
