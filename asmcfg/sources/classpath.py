"""The class files of the methods in a dump, found on a class path (`--classpath`, or a record folder's).

Class and method names come from the log, which may be crafted, and a record folder's class path from its
record.json. So only a Java binary name names a class file (`pkg/Outer$Inner.class`: identifiers, no separator,
no `..`); from a folder of the class path a file is read only when its real path is a regular file inside that
folder's real path; of a class path entry that is a file, only a `.jar` (a zip) or a JDK's `.jmod` (a zip behind
a 4-byte header, its classes under `classes/`) is opened, and only its entry of that name is read; every read
stops at `_MAX_BYTES`. Nothing is run: the bytes go to `classfile.read_class`, a reader whose time is linear in
them."""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path

from asmcfg.errors import InputError
from asmcfg.model.bytecode import ClassFiles, MethodCode
from asmcfg.sources.classfile import ClassFormatError, read_class

_MAX_BYTES = 4 << 20
"""A larger class file is not read (HotSpot's own limit on a method's code is 64 KB)."""
_MAX_ENTRIES = 1000
"""Class path entries looked in, at most."""
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.", "com.sun.")
"""Packages of the JDK's own classes, which live in its runtime image (`lib/modules`), not on a class path."""

HIDDEN = "a hidden class (a lambda's or another class made at run time): it has no class file"
NOT_FOUND = "not found on the class path"
IN_JDK = ("a JDK class: its class file is in the JDK's runtime image, which asmcfg does not read (give the JDK's "
          "jmods/java.base.jmod, or a folder `jimage extract` filled, to --classpath)")


def entries(values: Iterable[str]) -> list[str]:
    """`--classpath` values, each split at `os.pathsep`, empty parts dropped; each must exist."""
    found = [part for value in values for part in value.split(os.pathsep) if part]
    for entry in found:
        if not os.path.exists(entry):
            raise InputError("no such folder, jar or jmod (--classpath takes folders of .class files, jars and a "
                             "JDK's .jmod files)", entry)
    return found


def class_of(method: str) -> str:
    """`pkg.Class::m` -> `pkg.Class`."""
    return method.split("::", 1)[0]


def class_path_name(cls: str) -> str | None:
    """`pkg.Outer$Inner` -> `pkg/Outer$Inner.class`; None when `cls` is not a Java binary name."""
    parts = cls.split(".")
    if not all(part.replace("$", "_").isidentifier() for part in parts):
        return None
    return "/".join(parts) + ".class"


def find_classes(class_path: list[str], methods: Iterable[str]) -> ClassFiles:
    """The methods' code from the class files of their classes, each from the first class path entry holding it."""
    roots = class_path[:_MAX_ENTRIES]
    code: dict[str, list[MethodCode]] = {}
    read_from: dict[str, str] = {}
    absent: dict[str, str] = {}
    jars: dict[str, zipfile.ZipFile | None] = {}
    wanted = {class_of(m) for m in methods if "::" in m}
    try:
        for cls in sorted(wanted):
            relative = class_path_name(cls)
            if relative is None:
                absent[cls] = HIDDEN if "/" in cls else "not a Java class name"
                continue
            found = _first(roots, relative, jars)
            if found is None:
                absent[cls] = IN_JDK if cls.startswith(JDK_PACKAGES) else NOT_FOUND
                continue
            data, where = found
            try:
                name, read = read_class(data)
            except ClassFormatError as error:
                absent[cls] = f"its class file ({where}) cannot be read: {error}"
                continue
            if name != cls:
                absent[cls] = f"the class file {where} is of {name}"
                continue
            read_from[cls] = where
            for method in read:
                code.setdefault(method.method, []).append(method)
    finally:
        for jar in jars.values():
            if jar is not None:
                jar.close()
    return ClassFiles({name: tuple(found) for name, found in code.items()}, read_from, absent)


def _first(roots: list[str], relative: str, jars: dict[str, zipfile.ZipFile | None]) -> tuple[bytes, str] | None:
    for root in roots:
        found = _in_jar(_jar(root, jars), root, relative) if not os.path.isdir(root) else _in_folder(root, relative)
        if found is not None:
            return found
    return None


def _in_folder(root: str, relative: str) -> tuple[bytes, str] | None:
    """The bytes of `root/relative` when its real path is a regular file inside the real path of `root`."""
    try:
        base = Path(root).resolve()
        real = (base / relative).resolve()
        if not real.is_relative_to(base):
            return None
        # opened without waiting (a named pipe's open waits for a writer), then read only when a regular file
        with open(os.open(real, os.O_RDONLY | os.O_NONBLOCK), "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                return None
            data = stream.read(_MAX_BYTES + 1)
    except (OSError, RuntimeError):  # missing, unreadable, a symlink loop (RuntimeError before 3.13)
        return None
    return (data, str(real)) if len(data) <= _MAX_BYTES else None


def _jar(path: str, jars: dict[str, zipfile.ZipFile | None]) -> zipfile.ZipFile | None:
    """The jar or jmod at `path`, opened once (None when it is not a regular `.jar` or `.jmod` file holding a zip)."""
    if path not in jars:
        jars[path] = None
        try:
            if path.endswith((".jar", ".jmod")) and stat.S_ISREG(os.stat(path).st_mode):
                jars[path] = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile, ValueError):
            pass
    return jars[path]


def _in_jar(jar: zipfile.ZipFile | None, path: str, relative: str) -> tuple[bytes, str] | None:
    if jar is None:
        return None
    if path.endswith(".jmod"):
        relative = "classes/" + relative
    try:
        info = jar.getinfo(relative)
        if info.file_size > _MAX_BYTES:
            return None
        with jar.open(info) as stream:
            data = stream.read(_MAX_BYTES + 1)
    except (KeyError, OSError, zipfile.BadZipFile, ValueError, NotImplementedError, EOFError, zlib.error):
        return None
    return (data, f"{path}!{relative}") if len(data) <= _MAX_BYTES else None
