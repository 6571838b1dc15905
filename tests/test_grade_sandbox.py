"""The class grader's sandbox, protection by protection: a program run in a box exactly as a
submission's check is (the isolation this system allows, found by the grader's own probe) tries
each way out, and the test looks at what it could do. A protection this system cannot give is
skipped, naming what is missing; the report says the same."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from tools.grading.box import new_box, remove, write_tree
from tools.grading.cgroups import memory_groups
from tools.grading.accounts import account
from tools.grading.isolation import SelfTestFailed, detect_isolation, sealing_for
from tools.grading.measure import MeasureError, Measure, Trained, measure_all
from tools.grading.limits import Limits, environment
from tools.grading.sandbox import run_program

ROOT = Path(__file__).resolve().parent.parent
SHM_KEY = 0x5EED_2020
BOX_MEMORY = 512 * 2**20          # the whole box's, where a cgroup holds it
MEMORY_FEATURE = "a memory limit that counts all of a box's memory (a cgroup)"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """Run Python source in a fresh box (slot 0 unless told), as a submission's check runs."""
    run_dir = tmp_path_factory.mktemp("grade-run")
    # Beside the run folder's closed parent, not under it: a folder the hiding must cover.
    hand_ins = Path(tempfile.mkdtemp(prefix="hand-ins-"))
    (hand_ins / "alice").mkdir()
    (hand_ins / "alice" / "AI_Agent.py").write_text("# alice's answer\n")
    os.chmod(hand_ins, 0o755)
    memory, _ = memory_groups(BOX_MEMORY) if sys.platform.startswith("linux") else (None, "")
    isolation, _ = detect_isolation(run_dir, sealing_for(sys.executable, [ROOT, hand_ins],
                                                         run_dir), memory=memory)

    def run(source: str, slot: int = 0, files: dict[str, bytes] | None = None,
            hide: list[Path] | None = None, whole: bool = False):
        """The last line the program printed, as JSON; with ``whole``, the ``Outcome``.
        ``hide``: the folders to cover instead of the usual ones."""
        sealed = isolation if hide is None else replace(
            isolation, sealing=sealing_for(sys.executable, [ROOT, *hide], run_dir))
        box = new_box(run_dir, account(slot) if isolation.accounts else None)
        group = memory.make(box.name) if isolation.memory else None
        try:
            write_tree(box / "repo", files or {"check.py": b"# the grader's\n"})
            command, config = sealed.command(sys.executable, Limits(seconds=60), box, [
                sys.executable, "-c", textwrap.dedent(source)], slot, group=group)
            done = run_program(command, box / "repo", environment(box), Limits(seconds=60),
                               config=config)
            done.out_of_memory = bool(group and memory.out_of_memory(group))
        finally:
            remove(box)
            if group:
                memory.remove(group)
        if whole:
            return done
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    run.isolation, run.hand_ins, run.run_dir = isolation, hand_ins, run_dir
    yield run
    shutil.rmtree(hand_ins)
    if memory:
        memory.close()


def needs(sandbox, feature: str) -> None:
    if feature not in sandbox.isolation.features():
        pytest.skip(f"this system does not allow {feature}")


def test_proc_sys_cannot_be_opened_for_writing(sandbox):
    needs(sandbox, "read-only file systems")
    answer = sandbox("""
        import json
        try:
            open("/proc/sys/kernel/core_pattern", "a").close()
            print(json.dumps("opened"))
        except OSError as error:
            print(json.dumps(error.strerror))
    """)
    assert answer in ("Read-only file system", "Permission denied")


def test_sysv_shared_memory_does_not_outlive_the_box(sandbox):
    needs(sandbox, "PID and IPC namespaces")
    source = f"""
        import ctypes, json
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmget.restype = ctypes.c_int
        made = libc.shmget({SHM_KEY}, 1 << 20, 0o1666)        # IPC_CREAT, rw for all
        print(json.dumps(made >= 0))
    """
    assert sandbox(source) is True
    with open("/proc/sysvipc/shm", encoding="ascii") as table:
        keys = [int(line.split()[0]) for line in list(table)[1:] if line.strip()]
    assert SHM_KEY not in keys, "a box's shared memory segment is in the grader's namespace"
    seen = sandbox(f"""
        import ctypes, json
        libc = ctypes.CDLL(None, use_errno=True)
        print(json.dumps(libc.shmget({SHM_KEY}, 0, 0) >= 0))    # no IPC_CREAT: find it
    """)
    assert seen is False, "the next box found the last one's shared memory"


def test_each_slot_runs_as_an_unprivileged_account_of_its_own(sandbox):
    needs(sandbox, "an unprivileged account per submission")
    source = """
        import json, os
        print(json.dumps([os.getuid(), os.geteuid(), os.getgroups()]))
    """
    first, second = sandbox(source, slot=0), sandbox(source, slot=1)
    assert first[0] == first[1] == account(0) and second[0] == account(1)
    assert first[0] != 0 and first[2] in ([], [account(0)])


CLAIMS = ("from tools.grading.accounts import account; "
          "print(account(0), account(1), flush=True); input()")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="sandbox accounts are root's: only a grader run as root claims them")
def test_two_grading_runs_at_once_never_share_an_account_and_a_killed_one_holds_none():
    def claims() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", CLAIMS], cwd=ROOT, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def holders() -> set[int]:
        """The processes holding a lock, from the kernel's own list."""
        with open("/proc/locks", encoding="ascii") as table:
            return {int(line.split()[4]) for line in table if " FLOCK " in line}
    first, second = claims(), claims()
    try:
        held = [set(map(int, run.stdout.readline().split())) for run in (first, second)]
        mine = {account(0), account(1)}
        assert all(len(numbers) == 2 for numbers in held)
        assert not held[0] & held[1] and not mine & (held[0] | held[1]), (held, mine)
        assert first.pid in holders()
    finally:
        first.kill()
        first.wait()
        second.communicate("")
    assert first.pid not in holders()       # the kernel let its locks go: the accounts are free


def test_a_lock_folder_others_may_write_is_refused_in_one_line(tmp_path, monkeypatch):
    from tools.grading import accounts
    folder = tmp_path / "locks"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    monkeypatch.setattr(accounts, "LOCKS", folder)
    monkeypatch.setattr(accounts, "_claimed", [])
    with pytest.raises(RuntimeError, match="only it writes") as refused:
        accounts.account(0)
    assert "\n" not in str(refused.value)
    assert accounts._claimed == []


def test_nothing_outside_the_box_output_can_be_written(sandbox, tmp_path):
    needs(sandbox, "read-only file systems")
    target = tmp_path / "teacher.txt"
    target.write_text("the teacher's")
    os.chmod(tmp_path, 0o777)           # even a folder open to everyone
    os.chmod(target, 0o666)
    answer = sandbox(f"""
        import json, os
        results = {{}}
        for path in ({str(target)!r}, "check.py", "selfcheck.py", "../out/tables/x.pth",
                     os.path.join(os.environ["HOME"], "x"),
                     os.path.join(os.environ["TMPDIR"], "x")):
            try:
                with open(path, "a") as stream:
                    stream.write("changed")
                results[os.path.basename(path)] = "written"
            except OSError as error:
                results[os.path.basename(path)] = error.strerror
        print(json.dumps(results))
    """)
    assert answer["teacher.txt"] != "written" and answer["check.py"] != "written"
    assert answer["selfcheck.py"] != "written"       # no new file beside the trusted ones
    assert answer["x.pth"] == answer["x"] == "written"
    assert target.read_text() == "the teacher's"


def test_the_shipped_tables_and_the_hand_ins_are_out_of_reach(sandbox):
    needs(sandbox, "read-only file systems")
    assert (ROOT / "Data" / "Q_MC_X.pth").is_file()
    assert (sandbox.hand_ins / "alice" / "AI_Agent.py").is_file()
    answer = sandbox(f"""
        import json, os
        print(json.dumps([os.path.exists({str(ROOT / "Data" / "Q_MC_X.pth")!r}),
                          os.path.exists("Data/Q_MC_X.pth"),
                          os.listdir({str(sandbox.hand_ins)!r})]))
    """, files={"check.py": b"#\n", "Data/readme.txt": b"the tables are not here\n"})
    assert answer == [False, False, []]


def test_the_graders_own_repository_is_out_of_reach_but_its_python(sandbox):
    """The solved code, its history and its tables are in this repository: a box sees none of
    it, only the Python environment it runs (a .venv inside the repository, say)."""
    needs(sandbox, "read-only file systems")
    solved = ["AI_Agent.py", "MC_Trainer.py", "tictactoe_rl/training/monte_carlo.py",
              "tools/grade.py"]
    if (ROOT / ".git").exists():          # an unpacked sdist has no history
        solved.append(".git")
    assert all(os.path.lexists(ROOT / name) for name in solved)
    answer = sandbox(f"""
        import json, os, sys
        root = {str(ROOT)!r}
        print(json.dumps([[os.path.lexists(os.path.join(root, name)) for name in {solved!r}],
                          sorted(os.listdir(root)) if os.access(root, os.R_OK) else None,
                          os.path.isfile(sys.executable)]))
    """)
    found, listing, python = answer
    assert found == [False] * len(solved), dict(zip(solved, found))
    inside = [part for part in [os.path.relpath(sys.prefix, ROOT).split(os.sep)[0]]
              if not part.startswith("..")]
    assert listing in (None, inside), listing
    assert python


def test_a_box_sees_no_other_box_nor_the_graders_files_beside_it(sandbox, tmp_path):
    needs(sandbox, "read-only file systems")
    run_dir = sandbox.run_dir
    other = new_box(run_dir, None)
    try:
        write_tree(other / "repo", {"AI_Agent.py": b"# another student's answer\n"})
        (run_dir / "shipped").mkdir(exist_ok=True)
        (run_dir / "shipped" / "Q_MC_X.pth").write_bytes(b"the grader's")
        answer = sandbox(f"""
            import json, os
            def readable(path):
                try:
                    with open(path, "rb"):
                        return True
                except OSError:
                    return False
            here = os.path.dirname(os.getcwd())
            print(json.dumps([readable({str(other / "repo" / "AI_Agent.py")!r}),
                              readable({str(run_dir / "shipped" / "Q_MC_X.pth")!r}),
                              os.path.basename(here),
                              sorted(os.listdir(os.path.dirname(here)))
                              if os.access(os.path.dirname(here), os.R_OK) else None]))
        """)
    finally:
        remove(other)
    other_file, shipped, box, listing = answer
    assert (other_file, shipped) == (False, False), answer
    assert listing in (None, [box]), answer


def test_no_network_but_loopback(sandbox):
    needs(sandbox, "no network")
    answer = sandbox("""
        import json, socket
        print(json.dumps([name for _, name in socket.if_nameindex()]))
    """)
    assert set(answer) <= {"lo"}


def test_no_capability_is_left(sandbox):
    needs(sandbox, "read-only file systems")
    answer = sandbox("""
        import json
        with open("/proc/self/status") as status:
            caps = dict(line.split(":\\t") for line in status if line.startswith("Cap"))
        print(json.dumps({name: int(value, 16) for name, value in caps.items()}))
    """)
    assert answer["CapEff"] == answer["CapPrm"] == answer["CapBnd"] == 0, answer


@pytest.mark.slow
def test_tables_are_measured_in_a_child_and_one_without_its_games_is_unexplained(tmp_path):
    shipped = (ROOT / "Data" / "Q_MC_X.pth").read_bytes()
    found = measure_all({"X": Trained(shipped, None, "5eed"),
                         "O": Trained(b"\x80\x02not a table", None, "5eed")}, tmp_path, Limits())
    assert isinstance(found["X"], Measure)
    assert found["X"].unexplained == "the check left no record of the games its training played"
    assert 0.9 < found["X"].random[0] <= 1 and abs(sum(found["X"].random) - 1) < 1e-9
    assert isinstance(found["O"], MeasureError)
    assert "\n" not in str(found["O"]) and str(found["O"])


@pytest.mark.slow
def test_the_grader_itself_never_loads_a_table(monkeypatch, tmp_path):
    """``measure_all`` starts a child: loading in the grader's process would hang it with a
    stalling table, outside every limit."""
    started = []
    real = subprocess.Popen

    def spy(command, *args, **kwargs):
        started.append(command)
        return real(command, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", spy)
    found = measure_all({"O": Trained((ROOT / "Data" / "Q_MC_O.pth").read_bytes(), None, "")},
                        tmp_path, Limits())
    assert isinstance(found["O"], Measure) and found["O"].unexplained
    assert any("measure.py" in " ".join(map(str, command)) for command in started)


def test_a_child_not_started_after_a_stop_leaks_no_descriptor(tmp_path):
    from tools.grading import sandbox

    reading, writing = os.pipe()
    sandbox._STOPPED.set()
    try:
        with pytest.raises(RuntimeError):
            run_program([sys.executable, "-c", "pass"], tmp_path, {}, Limits(), writing)
    finally:
        sandbox._STOPPED.clear()
    with pytest.raises(OSError):
        os.fstat(writing)
    assert os.read(reading, 10) == b""       # the write end is gone: the reader sees the end
    os.close(reading)


# --- escapes closed in the third round: memory outside the address space, unix sockets, what the
# --- first process shows, hand-ins given through links, a sandbox that fails its self-test ------

@pytest.mark.slow
def test_memory_outside_the_address_space_counts_against_the_box(sandbox):
    """Memory written into memfds (each under the file-size limit, none of it mapped) is not
    in any process's address space: the box's cgroup counts it all the same."""
    needs(sandbox, MEMORY_FEATURE)
    done = sandbox("""
        import os
        chunk, kept = b"x" * (32 << 20), []
        for held in range(32, 3 * 512 + 1, 32):        # up to three times the box's limit
            kept.append(os.memfd_create("kept"))
            os.write(kept[-1], chunk)
            print(held, flush=True)
        print("all held", flush=True)
    """, whole=True)
    held = [int(line) for line in done.stdout.split() if line.isdigit()]
    assert "all held" not in done.stdout and done.returncode != 0, done.stdout[-200:]
    assert done.out_of_memory, "the kernel killed nothing for the box's memory limit"
    assert held and max(held) * 2**20 <= BOX_MEMORY, max(held)


def test_a_unix_socket_open_to_all_refuses_the_box(sandbox, tmp_path):
    """A socket file of mode 0777 outside every covered folder (a service's, say): the box can
    neither connect to it nor make a unix socket at all, nor a vsock (the virtual machine's
    host); an IP socket (in a network namespace with no way out) and a socket pair, which
    reach nothing, can still be made."""
    needs(sandbox, "no unix or vsock sockets")
    folder = Path(tempfile.mkdtemp(prefix="service-"))
    os.chmod(folder, 0o755)
    path = folder / "service.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        server.listen(1)
        os.chmod(path, 0o777)
        answer = sandbox(f"""
            import json, socket
            found = []
            for family in (socket.AF_UNIX, 40):            # 40: AF_VSOCK
                try:
                    client = socket.socket(family)
                    client.connect({str(path)!r} if family == socket.AF_UNIX else (2, 1024))
                    found.append("connected")
                except OSError as error:
                    found.append(error.strerror)
            pair = socket.socketpair()
            pair[0].send(b"x")
            socket.socket(socket.AF_INET).close()             # the namespace's own IP
            print(json.dumps([*found, pair[1].recv(1).decode()]))
        """)
    finally:
        server.close()
        shutil.rmtree(folder)
    assert answer == ["Permission denied", "Permission denied", "x"], answer


def test_no_process_of_the_box_shows_the_hidden_folders(sandbox):
    """The sandbox's first process gets its configuration on its standard input: no command
    line in the box names a covered folder (the folders' own mount points are listed in
    /proc/self/mountinfo, as docs/GRADING.md says; never what they hold)."""
    needs(sandbox, "read-only file systems")
    backwards = str(sandbox.hand_ins)[::-1]     # the program's own command line must not hold it
    answer = sandbox(f"""
        import glob, json
        lines = []
        for path in glob.glob("/proc/[0-9]*/cmdline"):
            try:
                with open(path, "rb") as stream:
                    lines.append(stream.read().decode("utf-8", "replace"))
            except OSError:
                pass
        hidden = {backwards!r}[::-1]
        print(json.dumps([len(lines), sum("launch" in line for line in lines),
                          [line[:300] for line in lines if hidden in line]]))
    """)
    read, first, shown = answer
    assert read >= 2 and first >= 1, answer         # its own and the first process's at least
    assert shown == [], answer


def test_hand_ins_given_through_links_read_no_other(sandbox, tmp_path):
    """``links/alice -> real/alice``: the box covers ``real/`` too, so Alice's code cannot read
    Bob's files there (covering only ``links/``, what it did before, leaves them open)."""
    from tools.grading.submissions import read_submission

    needs(sandbox, "read-only file systems")
    top = Path(tempfile.mkdtemp(prefix="class-"))
    try:
        for name in ("alice", "bob"):
            (top / "real" / name).mkdir(parents=True)
            (top / "real" / name / "AI_Agent.py").write_text(f"# {name}'s answer\n")
        (top / "links").mkdir()
        (top / "links" / "alice").symlink_to(top / "real" / "alice")
        for folder, _, files in os.walk(top):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        submission = read_submission(top / "links" / "alice", ("AI_Agent.py",))
        assert submission.files == {"AI_Agent.py": b"# alice's answer\n"}
        assert set(submission.folders) == {str(top / "links"), str(top / "real")}
        source = f"""
            import json
            try:
                with open({str(top / "real" / "bob" / "AI_Agent.py")!r}) as stream:
                    print(json.dumps(stream.read()))
            except OSError as error:
                print(json.dumps(error.strerror))
        """
        covered = sandbox(source, hide=[Path(folder) for folder in submission.folders])
        named_only = sandbox(source, hide=[top / "links"])
    finally:
        shutil.rmtree(top)
    assert named_only == "# bob's answer\n", "the test no longer tells the two apart"
    assert covered != "# bob's answer\n", covered


# --- the last holes of the fourth round: the kernel keyring, new user namespaces ---------------

FILTER = "no kernel keyring, no new user namespaces"
# What a box tries: each call's errno (0 when it worked), through libc's syscall(2) itself.
KERNEL_CALLS = """
    import ctypes, errno, json, os, platform, threading
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    calls = {"x86_64": dict(add_key=248, request_key=249, keyctl=250, unshare=272, clone=56,
                            clone3=435),
             "aarch64": dict(add_key=217, request_key=218, keyctl=219, unshare=97, clone=220,
                             clone3=435)}[platform.machine()]
    user_keyring, new_user, new_mount, child_signal = -4, 0x10000000, 0x00020000, 17
    def call(name, *args):
        done = libc.syscall(calls[name], *args)
        found = ctypes.get_errno() if done < 0 else 0
        if done == 0 and name == "clone":          # the child of a bare clone: gone at once
            os._exit(0)
        if done > 0 and name == "clone":
            os.waitpid(done, 0)
        return found
    found = {
        "add_key": call("add_key", b"user", b"stash", b"the answers", 11, user_keyring),
        "request_key": call("request_key", b"user", b"stash", None, 0),
        "keyctl": call("keyctl", 0, user_keyring, 1),          # KEYCTL_GET_KEYRING_ID, create
        "unshare user": call("unshare", new_user),
        "clone user": call("clone", new_user | child_signal, 0, 0, 0, 0),
        "clone3": call("clone3", 0, 0),
        "unshare mount": call("unshare", new_mount),            # as an account: refused anyway
    }
    thread = threading.Thread(target=lambda: None)             # threads still start
    thread.start()
    thread.join()
    pid = os.fork()                                            # and so do children
    if pid == 0:
        os._exit(7)
    found = {name: errno.errorcode.get(number, number) if number else 0
             for name, number in found.items()}
    found["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    print(json.dumps(found))
"""


def test_the_kernel_keyring_and_new_user_namespaces_are_refused(sandbox):
    """A key added to the account's keyring would outlive the box and reach the next hand-in
    of its slot (the same account), in this run or a later one; a user namespace of its own
    hands a box the kernel's largest surface. Both are refused; clone3, whose flags a filter
    cannot read, is answered "not here" so that threads and children fall back to clone."""
    needs(sandbox, FILTER)
    answer = sandbox(KERNEL_CALLS)
    assert answer == {"add_key": "EPERM", "request_key": "EPERM", "keyctl": "EPERM",
                      "unshare user": "EPERM", "clone user": "EPERM", "clone3": "ENOSYS",
                      "unshare mount": "EPERM", "fork": 7}, answer


def test_nothing_a_box_starts_outlives_it(sandbox):
    """A daemon (a session of its own, its parent gone) that a box leaves behind is ended with
    the box: no process of the box's account is left once it is over."""
    needs(sandbox, "PID and IPC namespaces")
    done = sandbox("""
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.chdir("/")
                time.sleep(300)
            os._exit(0)
        print(os.getuid(), flush=True)
    """, whole=True)
    uid = int(done.stdout.split()[0])
    left = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as stream:
                if os.stat(f"/proc/{entry}").st_uid == uid and b"sleep(300)" in stream.read():
                    left.append(entry)
        except OSError:
            pass
    assert done.returncode == 0 and left == [], left


@pytest.mark.slow
def test_a_sandbox_that_fails_its_self_test_stops_the_grading(tmp_path):
    """Covering /dev (what a device among the hand-ins once did) breaks the sealed sandbox:
    that is an error unless the teacher asks for a weaker isolation, which then says why."""
    plain = sealing_for(sys.executable, [], tmp_path)
    baseline, _ = detect_isolation(tmp_path, plain)
    if not baseline.read_only:
        pytest.skip("this system does not allow read-only file systems")
    broken = replace(plain, hide=("/dev",))
    with pytest.raises(SelfTestFailed, match="/dev/null"):
        detect_isolation(tmp_path, broken)
    weaker, missing = detect_isolation(tmp_path, broken, weaker=True)
    assert not weaker.read_only
    assert any(line.startswith("read-only file systems (") and "/dev/null" in line
               for line in missing), missing


def test_the_mount_table_is_read_with_odd_bytes_in_its_paths(tmp_path):
    """A mount point whose name is not UTF-8 and holds a space: read as the file system's
    bytes, not as text that fails or mangles it."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or subprocess.run(
            ["unshare", "--mount", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs root and a mount namespace to make a mount point")
    odd = os.fsencode(str(tmp_path)) + b"/caf\xe9 \\x"
    os.mkdir(odd)
    script = ("from tools.grading.launch import mount_points; import os, sys; "
              "sys.stdout.buffer.write(b'\\n'.join(map(os.fsencode, mount_points())))")
    done = subprocess.run([b"unshare", b"--mount", b"sh", b"-c",
                           b"mount --make-rprivate / && mount -t tmpfs none '" + odd + b"' && "
                           + os.fsencode(sys.executable) + b" -c \"" + script.encode() + b"\""],
                          capture_output=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr[-1000:]
    assert odd in done.stdout.split(b"\n"), done.stdout[-500:]


@pytest.mark.slow
def test_a_mount_under_a_covered_folder_leaves_the_sandbox_sealed(tmp_path):
    """A file system mounted inside a covered folder (a teacher's report folder on a disk of
    its own inside the class's folder, say) is out of every path's reach once covered; the
    sealed sandbox still passes its probe (it once failed it, and the grader fell back)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or subprocess.run(
            ["unshare", "--mount", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs root and a mount namespace to make a mount point")
    (tmp_path / "class" / "report").mkdir(parents=True)
    (tmp_path / "run").mkdir()
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from tools.grading import isolation
        run = Path({str(tmp_path / "run")!r})
        sealing = isolation.sealing_for(sys.executable, [Path({str(tmp_path / "class")!r})], run)
        sealed = [one for one in isolation.candidates(sealing) if one.read_only][0]
        print(isolation.probe(sealed, run, sys.executable))
    """)
    done = subprocess.run(["unshare", "--mount", "sh", "-c",
                           f"mount --make-rprivate / && mount -t tmpfs -o size=64k none "
                           f"'{tmp_path / 'class' / 'report'}' && exec '{sys.executable}' -c "
                           f"\"$0\"", script], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-1000:]
    assert done.stdout.strip().splitlines()[-1] == "None", done.stdout[-500:]


@pytest.mark.parametrize("version, name, text, killed", [
    (2, "memory.events", "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n", True),
    (2, "memory.events", "low 0\nhigh 0\nmax 12\noom 0\noom_kill 0\n", False),
    (1, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", True),
    (1, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n", False),
])
def test_a_kill_for_the_box_memory_reads_killed_memory(tmp_path, version, name, text, killed):
    """The kernel's count of the kills in a box's cgroup (v2 and v1 files), and the row's
    status for a check it killed with SIGKILL, which says nothing of memory itself."""
    from tools.grading.cgroups import MemoryGroups
    from tools.grading.results import failure_status
    from tools.grading.sandbox import Outcome

    (tmp_path / name).write_text(text)
    assert MemoryGroups(str(tmp_path.parent), version, 1).out_of_memory(str(tmp_path)) is killed
    status, _ = failure_status(Outcome(128 + 9, False, 1.0, "", "", None, out_of_memory=killed))
    assert status == ("killed (memory)" if killed else "killed (SIGKILL)")
