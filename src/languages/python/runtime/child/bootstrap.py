# The child side of the Python runtime (docs/python-runtime.md). The host feeds this text to
# 'python3 -I -S -B -X utf8 -' on stdin. Standard library only, Python 3.9+. It announces 'ready' on
# fd 3, then runs each 'run' frame's program as the body of an async function, reporting log, call
# and done frames in the same NDJSON protocol as the Node child (docs/control-channel.md). The host
# validates every frame; nothing here is a security boundary.
import ast
import asyncio
import builtins
import concurrent.futures
import contextvars
import io
import json
import logging
import math
import os
import sys
import threading
import traceback

_CHANNEL_FD = 3
_PROGRAM_FILENAME = "program.py"
_MAIN_NAME = "__ptc_main__"

# Taken before any program runs, so a program replacing them cannot reroute the bootstrap's own work.
_dumps = json.dumps
_loads = json.loads
_os_write = os.write
_os_read = os.read
_os_exit = os._exit
_isinstance = builtins.isinstance
_len = builtins.len
_list = builtins.list
_str = builtins.str
_type = builtins.type
_id = builtins.id

_write_lock = threading.Lock()

# In-memory mode (docs/in-memory-mode.md, "What a later run can trust"): each kept run's task runs in
# a context where this variable holds the run's token. asyncio copies the context into every task and
# call_later callback, and threads inherit their starter's (below), so code an earlier program left
# behind still carries that program's token, and the bindings refuse its calls.
_run_context = contextvars.ContextVar("ptc_run")
_copy_context = contextvars.copy_context


def _send(line):
    data = (line + "\n").encode("utf-8", "replace")
    view = memoryview(data)
    with _write_lock:
        try:
            while view:
                written = _os_write(_CHANNEL_FD, view)
                view = view[written:]
        except OSError:
            # The host is gone: nothing can be reported any more.
            _os_exit(0)


def _byte_length(text):
    return _len(text.encode("utf-8", "replace"))


class _State:
    limits = {
        "maxOutputBytes": 0,
        "maxFrameBytes": 0,
        "maxPendingCalls": 1,
        "maxPendingArgsBytes": 0,
        "maxValueDepth": 0,
        "maxErrorMessageBytes": 8192,
    }
    running = False
    finished = True
    output_bytes = 0
    next_call_id = 1
    pending_args_bytes = 0
    main_task = None
    namespace = None
    keep = False
    run = None
    # '"key":"...",' in a kept process: its channel key, from its first run frame, in every call and
    # done frame (docs/in-memory-mode.md). Python code can read it; it stops only stray writers.
    key_field = ""


_state = _State()
_pending = {}
_waiting = []
_error_classes = {}

# ---- output: print, logging, the ledger ----


def _cap_message(message):
    # Mirrors capErrorMessage in src/error-text.ts: head, a note with the size, the program location.
    limit = _state.limits["maxErrorMessageBytes"]
    total = _byte_length(message)
    if total <= limit:
        return message
    location = ""
    tail = message[-256:]
    marker = tail.rfind(" (" + _PROGRAM_FILENAME + ":")
    if marker >= 0 and tail.endswith(")"):
        location = tail[marker:]
    note = "\u2026 [message truncated: %d bytes in all]" % total
    budget = max(0, limit - _byte_length(note + location))
    head = message.encode("utf-8", "replace")[:budget].decode("utf-8", "ignore")
    return head + note + location


def _finish_with_error(code, message):
    if _state.finished:
        return
    _state.finished = True
    _send('{"type":"done",' + _state.key_field + '"ok":false,"error":' + _dumps({"code": code, "message": _cap_message(message)}) + "}")


def _emit_log(stream, text):
    # Output outside a run (warnings while starting, leftovers after 'done') is not a program's.
    if not _state.running or _state.finished:
        return
    cost = _byte_length(text) + 1
    limits = _state.limits
    if _state.output_bytes + cost > limits["maxOutputBytes"]:
        _finish_with_error(
            "OUTPUT_LIMIT",
            "the program's output exceeded %d bytes (logs plus the returned value); "
            "log less (counts, the first items, a summary) and return only what is needed" % limits["maxOutputBytes"],
        )
        return
    line = _dumps({"type": "log", "stream": stream, "text": text}, ensure_ascii=False)
    if _byte_length(line) > limits["maxFrameBytes"]:
        _finish_with_error("OUTPUT_LIMIT", "one log line is larger than the %d-byte channel limit; log less at once" % limits["maxFrameBytes"])
        return
    _state.output_bytes += cost
    _send(line)


class _Capture(io.TextIOBase):
    """sys.stdout / sys.stderr of the program: each complete line becomes one log frame."""

    def __init__(self, stream):
        super().__init__()
        self._stream = stream
        self._partial = ""

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "replace"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not _isinstance(text, _str):
            raise TypeError("write() argument must be str, not %s" % _type(text).__name__)
        buffered = self._partial + text
        lines = buffered.split("\n")
        self._partial = lines.pop()
        for line in lines:
            _emit_log(self._stream, line)
        # An endless line without a newline still meets the ledger once it could not fit.
        if _len(self._partial) > _state.limits["maxOutputBytes"]:
            rest, self._partial = self._partial, ""
            _emit_log(self._stream, rest)
        return _len(text)

    def flush(self):
        pass

    def drain(self):
        if self._partial != "":
            rest, self._partial = self._partial, ""
            _emit_log(self._stream, rest)

    def discard(self):
        self._partial = ""


_stdout = _Capture("stdout")
_stderr = _Capture("stderr")

# ---- JSON both ways ----

_MAX_SAFE_INTEGER = 2 ** 53 - 1


def _pointer(parts):
    return "".join("/" + _str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _json_problem(value, max_depth):
    """(path, reason) when 'value' is not JSON that crosses losslessly, else None."""
    ancestors = set()
    path = []

    def walk(item, depth):
        if item is None or _isinstance(item, (_str, bool)):
            return None
        if _isinstance(item, int):
            if -_MAX_SAFE_INTEGER <= item <= _MAX_SAFE_INTEGER:
                return None
            return "%d is beyond the exact range of a JSON number (2**53 - 1); return it as a string" % item
        if _isinstance(item, float):
            return None if math.isfinite(item) else "%r is not a JSON number" % item
        if _isinstance(item, (dict, list, tuple)):
            if depth >= max_depth:
                return "the value is nested deeper than %d levels" % max_depth
            if _id(item) in ancestors:
                return "a cyclic reference is not JSON"
            ancestors.add(_id(item))
            if _isinstance(item, dict):
                entries = list(item.items())
                for key, child in entries:
                    if not _isinstance(key, _str):
                        path.append(_str(key))
                        return "a %s key is not JSON (object keys are strings); convert it with str()" % _type(key).__name__
                    path.append(key)
                    reason = walk(child, depth + 1)
                    if reason is not None:
                        return reason
                    path.pop()
            else:
                for index, child in enumerate(list(item)):
                    path.append(index)
                    reason = walk(child, depth + 1)
                    if reason is not None:
                        return reason
                    path.pop()
            ancestors.discard(_id(item))
            return None
        if hasattr(item, "__await__"):
            return "a %s is not JSON: it is awaitable, so an await is missing (await tools.name(...))" % _type(item).__name__
        return "a %s is not JSON (convert it to a dict, list, str, int, float, bool or None)" % _type(item).__name__

    try:
        reason = walk(value, 0)
    except RecursionError:
        return ("", "the value is nested too deeply")
    except Exception as error:  # a hostile __eq__ or items() of a subclass
        return ("", "inspecting it raised %s" % _describe(error))
    return None if reason is None else (_pointer(path), reason)


def _to_json_text(value):
    """The value's JSON text, or (path, reason)."""
    problem = _json_problem(value, _state.limits["maxValueDepth"])
    if problem is not None:
        return problem
    try:
        return _dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except Exception as error:
        return ("", "serialising it raised %s" % _describe(error))


# ---- bindings ----


def _snake_case(name):
    out = []
    for char in name:
        if char.isupper():
            if out:
                out.append("_")
            out.append(char.lower())
        else:
            out.append(char)
    return "".join(out)


def _make_error_class(name, member_property):
    attribute = _snake_case(member_property)

    def __init__(self, message="", member=None, code=None):
        Exception.__init__(self, message)
        setattr(self, attribute, member)
        self.code = code

    def __str__(self):
        return _str(self.args[0]) if self.args else ""

    created = _type(name, (Exception,), {"__init__": __init__, "__str__": __str__, "__module__": "builtins"})
    created.__doc__ = "A failed call of a %s member; .%s names it, .code is the stable error code." % (name, attribute)
    return created


def _call_error(binding, member, message, code=None):
    spec = binding["errorClass"]
    if spec is None:
        error = RuntimeError(message)
        error.code = code
        return error
    return _error_classes[spec["name"]](message, member, code)


def _label(binding, member):
    if member.isidentifier():
        return "%s.%s" % (binding["global"], member)
    return "%s[%s]" % (binding["global"], _dumps(member))


def _call_binding(binding, member, args, kwargs):
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    if _state.finished:
        return future  # never settles: the run is over
    label = _label(binding, member)
    if _state.keep and _run_context.get(None) is not _state.run:
        future.set_exception(_call_error(
            binding, member,
            "%s was refused: this call was made by code of an earlier program after it ended (a callback, "
            "task or thread it left running); only the program now running can call tools" % label,
            "PERMISSION_DENIED",
        ))
        future.exception()  # retrieved: an unawaited refusal is not logged into the running program's output
        return future
    if binding.get("argumentList"):
        # The binding reads its own argument shapes (sdk.search("q", limit=5)): every positional
        # argument, then the keywords as one dict.
        value = _list(args) + ([dict(kwargs)] if kwargs else [])
    elif args and kwargs:
        future.set_exception(_call_error(binding, member, "%s takes one dict of arguments, or keyword arguments, not both" % label, "INVALID_ARGS"))
        return future
    elif _len(args) > 1:
        future.set_exception(_call_error(binding, member, "%s takes one argument, a dict; got %d positional arguments" % (label, _len(args)), "INVALID_ARGS"))
        return future
    else:
        value = args[0] if args else dict(kwargs)
    json_text = _to_json_text(value)
    if not _isinstance(json_text, _str):
        path, reason = json_text
        where = "the argument itself" if path == "" else "at " + path
        future.set_exception(_call_error(binding, member, "Invalid arguments for %s: %s: %s. Pass plain JSON values." % (label, where, reason), "INVALID_ARGS"))
        return future
    head = '{"type":"call",' + _state.key_field + '"global":%s,"member":%s,"args":%s,"id":' % (_dumps(binding["global"]), _dumps(member), json_text)
    cost = _byte_length(head) + 24
    if cost > _state.limits["maxFrameBytes"]:
        future.set_exception(_call_error(binding, member, "the argument of %s is %d bytes; the limit is %d bytes" % (label, cost, _state.limits["maxFrameBytes"])))
        return future
    _waiting.append((head, future, binding, member, cost))
    _send_waiting()
    return future


def _send_waiting():
    limits = _state.limits
    while _waiting and not _state.finished:
        head, future, binding, member, cost = _waiting[0]
        full = _len(_pending) >= limits["maxPendingCalls"] or (
            _pending and _state.pending_args_bytes + cost > limits["maxPendingArgsBytes"]
        )
        if full:
            return
        _waiting.pop(0)
        if future.cancelled():
            continue
        call_id = _state.next_call_id
        _state.next_call_id += 1
        _pending[call_id] = (future, binding, member, cost)
        _state.pending_args_bytes += cost
        _send(head + _str(call_id) + "}")


def _on_result(frame):
    entry = _pending.pop(frame.get("id"), None)
    if entry is None:
        return  # a reply for a call of an earlier run
    future, binding, member, cost = entry
    _state.pending_args_bytes -= cost
    if not future.done():
        if frame.get("ok"):
            future.set_result(frame.get("value"))
        else:
            error = frame.get("error") or {}
            future.set_exception(_call_error(binding, member, error.get("message", ""), error.get("code")))
    _send_waiting()


def _namespace_class():
    """A class of its own for each run's namespaces, so a kept program that patched the class of an
    earlier run's 'tools' (type(tools).__getattr__ = ...) does not answer a later run's calls."""

    class _Namespace:
        """'tools': tools.name(...) for identifiers, tools["any-name"](...) for every name."""

        __slots__ = ("_global", "_members")

        def __init__(self, global_name, members):
            object.__setattr__(self, "_global", global_name)
            object.__setattr__(self, "_members", members)

        def __getattr__(self, name):
            members = object.__getattribute__(self, "_members")
            if name in members:
                return members[name]
            raise AttributeError("%s has no member %r; the SDK lists them" % (object.__getattribute__(self, "_global"), name))

        def __getitem__(self, name):
            members = object.__getattribute__(self, "_members")
            if name in members:
                return members[name]
            raise KeyError("%s has no member %r; the SDK lists them" % (object.__getattribute__(self, "_global"), name))

        def __setattr__(self, name, value):
            raise AttributeError("%s is read-only" % object.__getattribute__(self, "_global"))

        def __contains__(self, name):
            return name in object.__getattribute__(self, "_members")

        def __iter__(self):
            return iter(sorted(object.__getattribute__(self, "_members")))

        def __dir__(self):
            return sorted(object.__getattribute__(self, "_members"))

        def __repr__(self):
            return "<%s: %d members>" % (object.__getattribute__(self, "_global"), _len(object.__getattribute__(self, "_members")))

    return _Namespace


def _install_bindings(namespace, bindings):
    namespace_class = _namespace_class()
    for binding in bindings:
        spec = binding["errorClass"]
        if spec is not None:
            if spec["name"] not in _error_classes:
                _error_classes[spec["name"]] = _make_error_class(spec["name"], spec["memberNameProperty"])
            namespace[spec["name"]] = _error_classes[spec["name"]]
        members = {}
        for member in binding["members"]:
            members[member] = _member_function(binding, member)
        namespace[binding["global"]] = namespace_class(binding["global"], members)


def _member_function(binding, member):
    def call(*args, **kwargs):
        return _call_binding(binding, member, args, kwargs)

    call.__name__ = member if member.isidentifier() else "call"
    call.__qualname__ = "%s.%s" % (binding["global"], call.__name__)
    return call


# ---- the program ----


class _TopLevelNames(ast.NodeVisitor):
    """Names the program body binds in its own scope (they become globals of its namespace)."""

    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if _isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def _definition(self, node):
        self.names.add(node.name)
        for decorator in node.decorator_list:
            self.visit(decorator)

    def visit_FunctionDef(self, node):
        self._definition(node)

    def visit_AsyncFunctionDef(self, node):
        self._definition(node)

    def visit_ClassDef(self, node):
        self._definition(node)
        for base in node.bases:
            self.visit(base)

    def visit_Lambda(self, node):
        pass

    def visit_Import(self, node):
        for alias in node.names:
            self.names.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node):
        for alias in node.names:
            if alias.name != "*":
                self.names.add(alias.asname or alias.name)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_Global(self, node):
        self.names.update(node.names)

    def visit_MatchAs(self, node):
        if getattr(node, "name", None):
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if getattr(node, "name", None):
            self.names.add(node.name)

    def visit_MatchMapping(self, node):
        if getattr(node, "rest", None):
            self.names.add(node.rest)
        self.generic_visit(node)


def _without_top_level_globals(body):
    # The program's own 'global x' would come after our declaration of x and be refused.
    return [statement for statement in body if not _isinstance(statement, ast.Global)]


def _compile_program(source):
    """The program as 'async def __ptc_main__():' whose top-level names are globals of its namespace.
    Built on the AST, so every line and column is the model's own."""
    tree = ast.parse(source, filename=_PROGRAM_FILENAME, mode="exec")
    finder = _TopLevelNames()
    for statement in tree.body:
        finder.visit(statement)
    body = _without_top_level_globals(tree.body)
    if not body:
        body = [ast.Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)]
    names = sorted(finder.names)
    if names:
        declaration = ast.Global(names=names, lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)
        body = [declaration] + body
    arguments = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    function = ast.AsyncFunctionDef(name=_MAIN_NAME, args=arguments, body=body, decorator_list=[], returns=None, type_comment=None)
    if "type_params" in ast.AsyncFunctionDef._fields:
        function.type_params = []
    function.lineno, function.col_offset, function.end_lineno, function.end_col_offset = 1, 0, 1, 0
    module = ast.Module(body=[function], type_ignores=[])
    ast.fix_missing_locations(module)
    return compile(module, _PROGRAM_FILENAME, "exec", dont_inherit=True)


def _describe(error):
    try:
        name = _type(error).__name__
        text = _str(error)
        return "%s: %s" % (name, text) if text else name
    except Exception:
        return "an unprintable exception"


def _location(error):
    if _isinstance(error, SyntaxError):
        if error.filename == _PROGRAM_FILENAME and error.lineno:
            return "%s:%d:%d" % (_PROGRAM_FILENAME, error.lineno, error.offset or 1)
        return None
    try:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == _PROGRAM_FILENAME]
    except Exception:
        return None
    if not frames:
        return None
    last = frames[-1]
    column = getattr(last, "colno", None)
    if column is None:
        return "%s:%d" % (_PROGRAM_FILENAME, last.lineno)
    return "%s:%d:%d" % (_PROGRAM_FILENAME, last.lineno, column + 1)


def _error_text(error):
    if _isinstance(error, SyntaxError):
        text = "SyntaxError: %s" % (error.msg or "invalid syntax")
    else:
        text = _describe(error)
    location = _location(error)
    return text if location is None else "%s (%s)" % (text, location)


def _drain_output():
    _stdout.drain()
    _stderr.drain()


def _on_value(value):
    if _state.finished:
        return
    _drain_output()
    if _state.finished:
        return
    if value is None:
        _state.finished = True
        _send('{"type":"done",' + _state.key_field + '"ok":true}')
        return
    json_text = _to_json_text(value)
    if not _isinstance(json_text, _str):
        path, reason = json_text
        where = "the value itself" if path == "" else "at " + path
        _finish_with_error(
            "INVALID_OUTPUT",
            "the returned value is not JSON: %s: %s. Return dicts, lists, strings, numbers, booleans or None "
            "(convert sets, dates and class instances first)." % (where, reason),
        )
        return
    size = _byte_length(json_text)
    line = '{"type":"done",' + _state.key_field + '"ok":true,"value":' + json_text + "}"
    limits = _state.limits
    if _state.output_bytes + size > limits["maxOutputBytes"] or _byte_length(line) > limits["maxFrameBytes"]:
        _finish_with_error(
            "OUTPUT_LIMIT",
            "the returned value is %d bytes and the logs %d bytes: more than the output limit of %d bytes; "
            "return less (a summary, a count, the first items)" % (size, _state.output_bytes, limits["maxOutputBytes"]),
        )
        return
    _state.finished = True
    _send(line)


def _on_error(error):
    if _state.finished:
        return
    _drain_output()
    if _state.finished:
        return
    if _isinstance(error, SystemExit):
        _finish_with_error("EXCEPTION", "the program called exit (%r); return a value instead" % (error.code,))
        return
    _finish_with_error("EXCEPTION", _error_text(error))


async def _run_main(main):
    try:
        value = await main()
    except BaseException as error:  # SystemExit and KeyboardInterrupt are the program's too
        _on_error(error)
    else:
        _on_value(value)
    finally:
        _end_run()


def _end_run():
    """After 'done': stop what the program left running, so a kept process starts its next run clean."""
    _state.running = False
    _stdout.discard()
    _stderr.discard()
    current = asyncio.current_task()
    for task in asyncio.all_tasks():
        if task is not current and task is not _state.main_task:
            task.cancel()
    for future, _binding, _member, _cost in list(_pending.values()):
        future.cancel()
    for entry in _waiting:
        entry[1].cancel()
    _pending.clear()
    del _waiting[:]
    _state.pending_args_bytes = 0


def _fresh_namespace():
    return {"__name__": "__main__", "__builtins__": builtins, "__doc__": None}


def _start_run(frame):
    if _state.running:
        return
    _state.limits = frame["limits"]
    _state.running = True
    _state.finished = False
    _state.output_bytes = 0
    _state.keep = frame.get("keep", False) is True
    key = frame.get("key")
    if _isinstance(key, _str) and _state.key_field == "":
        _state.key_field = '"key":%s,' % _dumps(key)
    if _state.namespace is None or not _state.keep:
        _state.namespace = _fresh_namespace()
    namespace = _state.namespace
    _install_bindings(namespace, frame["bindings"])
    try:
        code = _compile_program(frame["code"])
        exec(code, namespace)
        main = namespace.pop(_MAIN_NAME)
    except BaseException as error:
        _on_error(error)
        _end_run()
        return
    if main.__code__.co_flags & 0x200:  # CO_ASYNC_GENERATOR: the body used yield
        _finish_with_error("EXCEPTION", "yield is not allowed at the top level of a program; return a list instead")
        _end_run()
        return
    loop = asyncio.get_running_loop()
    if not _state.keep:
        loop.create_task(_run_main(main))
        return
    # A fresh token, set in a context of this run alone; the task copies it, and so does everything the
    # program starts from there.
    _state.run = object()
    context = _copy_context()
    context.run(_run_context.set, _state.run)
    context.run(loop.create_task, _run_main(main))


def _on_host_frame(frame):
    kind = frame.get("type")
    if kind == "run":
        _start_run(frame)
    elif kind == "result":
        _on_result(frame)


def _reader(loop):
    parts = []
    while True:
        try:
            chunk = _os_read(_CHANNEL_FD, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            # The host ended the channel: it is gone or done with us.
            _os_exit(0)
        start = 0
        newline = chunk.find(b"\n")
        while newline >= 0:
            parts.append(chunk[start:newline])
            line = b"".join(parts)
            parts = []
            loop.call_soon_threadsafe(_on_host_frame, _loads(line))
            start = newline + 1
            newline = chunk.find(b"\n", start)
        if start < _len(chunk):
            parts.append(chunk[start:])


_thread_start = threading.Thread.start
_thread_bootstrap_inner = threading.Thread._bootstrap_inner
_executor_submit = concurrent.futures.ThreadPoolExecutor.submit


def _start_thread(self):
    # A thread runs in a copy of its starter's context, so it belongs to the run that started it.
    self._ptc_context = _copy_context()
    return _thread_start(self)


def _run_thread(self):
    context = getattr(self, "_ptc_context", None)
    if context is None:
        return _thread_bootstrap_inner(self)
    return context.run(_thread_bootstrap_inner, self)


def _submit(self, fn, *args, **kwargs):
    # A pool thread outlives the run that started it: each work item runs in its submitter's context.
    return _executor_submit(self, _copy_context().run, fn, *args, **kwargs)


def _prepare():
    threading.Thread.start = _start_thread
    threading.Thread._bootstrap_inner = _run_thread
    concurrent.futures.ThreadPoolExecutor.submit = _submit
    sys.stdout = _stdout
    sys.stderr = _stderr
    handler = logging.StreamHandler(_stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    # One pass through the compile-and-run path, so it is warm when the program arrives.
    _compile_program("x = [1, 'x', None]\nreturn x")
    _json_problem({"warm": [1, "x", None]}, 8)


async def _main():
    _state.main_task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    threading.Thread(target=_reader, args=(loop,), name="ptc-channel", daemon=True).start()
    _send('{"type":"ready"}')
    await loop.create_future()


_prepare()
asyncio.run(_main())
