"""Bad programs and bad arguments raise, saying what is wrong."""

import pytest

import crumbs


def test_compile_error_carries_the_diagnostic():
    with pytest.raises(crumbs.CompileError) as e:
        crumbs.run("syscall::read:entry\n{ @ = count(); x = ; }")
    err = e.value
    assert (err.line, err.col) == (2, 20)
    assert "error" in str(err) and "<program>:2:20" in str(err)
    assert err.message and err.message in str(err)
    assert err.diagnostic == str(err)


def test_unknown_probe_is_a_compile_error():
    with pytest.raises(crumbs.CompileError) as e:
        crumbs.run("nosuchprovider:::entry { trace(1); }")
    assert e.value.line == 1
    assert "nosuchprovider" in str(e.value)


def test_a_bad_option_is_a_compile_error_without_a_place():
    with pytest.raises(crumbs.CompileError) as e:
        crumbs.run("dtrace:::BEGIN { exit(0); }", options=["bufsize=lots"])
    assert (e.value.line, e.value.col) == (0, 0)
    assert "bufsize" in str(e.value)


def test_a_command_that_cannot_run_is_a_trace_error():
    with pytest.raises(crumbs.TraceError) as e:
        crumbs.run("dtrace:::BEGIN { exit(0); }", cmd="/nonexistent/program")
    assert "/nonexistent/program" in str(e.value)


@pytest.mark.parametrize("kwargs, says", [
    ({"duration": -1}, "duration=-1"),
    ({"duration": float("nan")}, "duration=NaN: not a number of seconds"),
    ({"pid": 0}, "pid=0"),
    ({"cmd": "  "}, "cmd=''"),
])
def test_bad_arguments_are_value_errors(kwargs, says):
    with pytest.raises(ValueError) as e:
        crumbs.run("dtrace:::BEGIN { exit(0); }", **kwargs)
    assert says in str(e.value)


def test_a_program_must_be_text():
    with pytest.raises(TypeError):
        crumbs.run(b"dtrace:::BEGIN { exit(0); }")


def test_start_raises_compile_errors_in_the_caller():
    with pytest.raises(crumbs.CompileError) as e:
        crumbs.start("syscall::read:entry { @ = count(); } syscall::nosuchcall:entry { trace(1); }")
    assert e.value.line == 1 and e.value.col > 1
