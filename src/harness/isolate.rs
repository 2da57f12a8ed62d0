//! Instances solved in worker processes, under limits the parent enforces: what keeps one
//! hostile instance from taking a whole `check` or `batch` run down.
//!
//! A [`Pool`] holds one slot per parallel job; a slot's worker is a child process (gordian
//! itself, `gordian worker ...`) that reads one request per line on standard input and
//! answers one line on standard output, and is kept alive across requests. While a
//! request runs the parent watches the clock, the worker's resident memory (Linux:
//! `/proc/PID/statm`) and a stop flag (signals), every [`TICK`]; past the wall-clock limit
//! or the memory limit, or when stopped, it kills the worker's process group at once. A
//! worker that dies (a stack overflow, an allocation failure, a kill from outside) costs
//! its request: the reply says how it ended, with the tail of what it wrote on standard
//! error; the next request starts a fresh worker.
//!
//! Invariants: a request gets exactly one [`Reply`]; [`Pool::ask`] returns within one
//! [`TICK`] of a limit or of the stop flag, whatever the worker does; no worker outlives
//! its pool (dropping the pool kills them); workers run in process groups of their own,
//! so a terminal's Ctrl+C reaches only the parent, which decides.

use crate::cancel::Instant;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often a waiting parent looks at the clock, the worker's memory and the stop flag.
pub const TICK: Duration = Duration::from_millis(20);

/// How much of a dead worker's standard error its reply keeps (the end).
const STDERR_TAIL: usize = 2000;

/// How a worker is started: the program and its arguments.
#[derive(Clone, Debug)]
pub struct Spawn {
    /// The program (gordian's own executable).
    pub program: PathBuf,
    /// Its arguments (`worker ...`).
    pub args: Vec<String>,
}

/// What the parent enforces on each request.
#[derive(Clone, Copy, Debug, Default)]
pub struct HardLimits {
    /// Wall-clock time per request.
    pub wall: Option<Duration>,
    /// Resident memory of the worker process, in bytes.
    pub resident: Option<u64>,
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The worker's answer line (without its line end).
    Answer(String),
    /// The wall-clock limit passed; the worker was killed after this long.
    Timeout(Duration),
    /// The worker's resident memory passed the limit and it was killed.
    Memory {
        /// Resident bytes when it was seen past the limit.
        resident: u64,
        /// The limit.
        limit: u64,
    },
    /// The worker died, or could not be started or written to: how, in words.
    Crashed(String),
    /// The stop flag was set; the worker was killed and the request has no answer.
    Stopped,
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

/// Worker processes, one slot per parallel job (see the module doc).
pub struct Pool {
    spawn: Spawn,
    limits: HardLimits,
    slots: Vec<Mutex<Option<Worker>>>,
}

impl Pool {
    /// A pool of `size` slots; workers start on their first request.
    pub fn new(spawn: Spawn, limits: HardLimits, size: usize) -> Pool {
        Pool {
            spawn,
            limits,
            slots: (0..size.max(1)).map(|_| Mutex::new(None)).collect(),
        }
    }

    /// Sends `request` (one line of JSON) to the worker of `slot` (modulo the pool's
    /// size) and waits for its answer under the pool's limits and `stop`.
    pub fn ask(&self, slot: usize, request: &str, stop: &AtomicBool) -> Reply {
        let mut guard = self.slots[slot % self.slots.len()]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if stop.load(Ordering::Relaxed) {
            return Reply::Stopped;
        }
        // A worker that died while idle (killed from outside between requests) costs no
        // request: it is replaced before this one is sent.
        if let Some(w) = guard.as_mut() {
            if !matches!(w.child.try_wait(), Ok(None)) {
                kill(guard.take().expect("the worker is there"));
            }
        }
        if guard.is_none() {
            match start(&self.spawn) {
                Ok(w) => *guard = Some(w),
                Err(e) => return Reply::Crashed(format!("cannot start a worker process: {e}")),
            }
        }
        let w = guard.as_mut().expect("a worker was just started");
        let sent = without_sigpipe(|| {
            w.stdin
                .write_all(request.as_bytes())
                .and_then(|()| w.stdin.write_all(b"\n"))
                .and_then(|()| w.stdin.flush())
        });
        if sent.is_err() {
            let w = guard.take().expect("the worker is there");
            return Reply::Crashed(ended(w));
        }
        let start = Instant::now();
        loop {
            match w.lines.recv_timeout(TICK) {
                Ok(line) => return Reply::Answer(line),
                Err(RecvTimeoutError::Disconnected) => {
                    let w = guard.take().expect("the worker is there");
                    return Reply::Crashed(ended(w));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if stop.load(Ordering::Relaxed) {
                kill(guard.take().expect("the worker is there"));
                return Reply::Stopped;
            }
            if self.limits.wall.is_some_and(|t| start.elapsed() >= t) {
                kill(guard.take().expect("the worker is there"));
                return Reply::Timeout(start.elapsed());
            }
            if let Some(limit) = self.limits.resident {
                if let Some(resident) = resident_bytes(w.child.id()) {
                    if resident > limit {
                        kill(guard.take().expect("the worker is there"));
                        return Reply::Memory { resident, limit };
                    }
                }
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for slot in &self.slots {
            if let Some(w) = slot.lock().unwrap_or_else(|e| e.into_inner()).take() {
                kill(w);
            }
        }
    }
}

/// Runs `write` (a write to a worker's pipe) with SIGPIPE blocked in this thread, and
/// takes back a SIGPIPE the write raised: a worker killed from outside just before a
/// request is a write error here (`Crashed`), never the end of the parent, whose SIGPIPE
/// is the default action (so that `gordian ... | head` ends quietly). A SIGPIPE that was
/// pending before the write is left pending.
fn without_sigpipe<T>(write: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    #[cfg(unix)]
    {
        // SAFETY: sigset_t values are initialised by sigemptyset before use;
        // pthread_sigmask changes this thread's mask only and is restored below;
        // sigtimedwait with a zero timeout only takes a pending SIGPIPE of this thread.
        unsafe {
            let mut pipe: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut pipe);
            libc::sigaddset(&mut pipe, libc::SIGPIPE);
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, &mut old);
            let mut pending: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut pending);
            libc::sigpending(&mut pending);
            let was_pending = libc::sigismember(&pending, libc::SIGPIPE) == 1;
            let result = write();
            if matches!(&result, Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
                && !was_pending
            {
                let zero = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                libc::sigtimedwait(&pipe, std::ptr::null_mut(), &zero);
            }
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            result
        }
    }
    #[cfg(not(unix))]
    write()
}

fn start(spawn: &Spawn) -> std::io::Result<Worker> {
    let mut cmd = Command::new(&spawn.program);
    cmd.args(&spawn.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        // SAFETY: runs in the child between fork and exec; setrlimit is async-signal-safe
        // and touches no memory of the parent's. A crashing worker must not write a core
        // file per instance.
        unsafe {
            cmd.pre_exec(|| {
                let none = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::setrlimit(libc::RLIMIT_CORE, &none);
                Ok(())
            });
        }
    }
    let mut child = cmd.spawn()?;
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            match line {
                Ok(l) => {
                    if tx.send(l).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            }
        }
    });
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let keep = stderr.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = err.read(&mut chunk) {
            if n == 0 {
                return;
            }
            let mut buf = keep.lock().unwrap_or_else(|e| e.into_inner());
            buf.extend_from_slice(&chunk[..n]);
            if buf.len() > 2 * STDERR_TAIL {
                let cut = buf.len() - STDERR_TAIL;
                buf.drain(..cut);
            }
        }
    });
    Ok(Worker {
        child,
        stdin,
        lines,
        stderr,
    })
}

/// Kills the worker's process group and reaps it.
fn kill(mut w: Worker) {
    kill_child(&mut w.child);
}

fn kill_child(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: signals the worker's own process group (it is its leader), which it
        // has not left: it has not been reaped yet, so the id is still its.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// How a worker that stopped answering ended, in words, with the end of its standard
/// error.
fn ended(mut w: Worker) -> String {
    drop(w.stdin);
    // Its standard output closed: it is exiting, or has exited.
    let status = wait_briefly(&mut w.child);
    let how = match status {
        Some(s) => describe(s),
        None => {
            kill_child(&mut w.child);
            "the worker closed its output and did not exit; it was killed".to_string()
        }
    };
    // Give the stderr reader a moment to drain what the worker wrote last.
    std::thread::sleep(Duration::from_millis(10));
    let tail = w.stderr.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let tail = String::from_utf8_lossy(&tail);
    let tail = tail.trim();
    if tail.is_empty() {
        how
    } else {
        let chars: Vec<char> = tail.chars().collect();
        let t: String = chars[chars.len().saturating_sub(STDERR_TAIL)..]
            .iter()
            .collect();
        format!("{how}; it wrote: {t}")
    }
}

fn wait_briefly(child: &mut Child) -> Option<ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => return None,
        }
    }
    None
}

fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                libc::SIGSEGV => " (SIGSEGV: a stack overflow or a memory fault)",
                libc::SIGABRT => " (SIGABRT: an abort, e.g. a failed allocation)",
                libc::SIGKILL => {
                    " (SIGKILL: killed from outside, e.g. by the kernel's out-of-memory killer)"
                }
                libc::SIGBUS => " (SIGBUS)",
                libc::SIGILL => " (SIGILL)",
                _ => "",
            };
            return format!("the worker process crashed: killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(c) => format!("the worker process exited with code {c} before answering"),
        None => "the worker process ended before answering".to_string(),
    }
}

/// The resident memory of process `pid`, in bytes (Linux; `None` elsewhere or when it
/// cannot be read).
pub fn resident_bytes(pid: u32) -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
        let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        Some(pages * u64::try_from(page).ok()?)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Spawn {
        Spawn {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
        }
    }

    /// One worker that echoes each request line after its own pid (`PID LINE`): the same
    /// pid in two answers means one worker served both.
    fn echo_pool() -> Pool {
        Pool::new(
            sh("while read l; do echo \"$$ $l\"; done"),
            HardLimits::default(),
            1,
        )
    }

    /// The echo worker's answer to `line`, split into its pid and the line echoed.
    fn echoed(pool: &Pool, line: &str) -> (String, String) {
        match pool.ask(0, line, &AtomicBool::new(false)) {
            Reply::Answer(a) => {
                let (pid, l) = a.split_once(' ').expect("PID LINE");
                (pid.to_string(), l.to_string())
            }
            r => panic!("no answer: {r:?}"),
        }
    }

    #[test]
    fn a_worker_answers_line_by_line_and_is_kept() {
        let pool = echo_pool();
        let (pa, la) = echoed(&pool, "one");
        let (pb, lb) = echoed(&pool, "two");
        assert_eq!(
            (pa.as_str(), la.as_str(), lb.as_str()),
            (pb.as_str(), "one", "two")
        );
    }

    #[test]
    fn a_crash_costs_one_request_and_is_described() {
        let pool = Pool::new(
            sh("read l; echo 'dying now' >&2; kill -SEGV $$"),
            HardLimits::default(),
            1,
        );
        let stop = AtomicBool::new(false);
        for _ in 0..2 {
            match pool.ask(0, "x", &stop) {
                Reply::Crashed(how) => {
                    assert!(how.contains("signal 11"), "{how}");
                    assert!(how.contains("dying now"), "{how}");
                }
                r => panic!("{r:?}"),
            }
        }
    }

    #[test]
    fn a_worker_killed_while_idle_is_replaced_without_costing_a_request() {
        let pool = echo_pool();
        let (pid, _) = echoed(&pool, "one");
        let pid: libc::pid_t = pid.parse().unwrap();
        // SAFETY: signals the worker this test started (still unreaped).
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(100));
        let (other, line) = echoed(&pool, "two");
        assert_ne!(other, pid.to_string());
        assert_eq!(line, "two");
    }

    #[test]
    fn the_wall_clock_limit_kills_a_worker_that_does_not_answer() {
        let pool = Pool::new(
            sh("read l; sleep 30"),
            HardLimits {
                wall: Some(Duration::from_millis(200)),
                resident: None,
            },
            1,
        );
        match pool.ask(0, "x", &AtomicBool::new(false)) {
            Reply::Timeout(after) => assert!(after >= Duration::from_millis(200)),
            r => panic!("{r:?}"),
        }
    }

    #[test]
    fn the_stop_flag_ends_a_request_at_once() {
        let pool = Pool::new(sh("read l; sleep 30"), HardLimits::default(), 1);
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            s.store(true, Ordering::Relaxed);
        });
        assert_eq!(pool.ask(0, "x", &stop), Reply::Stopped);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_memory_limit_kills_a_growing_worker() {
        // python3 is what CI has anyway; it holds 200 MiB, past a 50 MiB limit.
        let pool = Pool::new(
            sh("read l; exec python3 -c 'import time; x = bytearray(200 << 20); time.sleep(30)'"),
            HardLimits {
                wall: Some(Duration::from_secs(20)),
                resident: Some(50 << 20),
            },
            1,
        );
        match pool.ask(0, "x", &AtomicBool::new(false)) {
            Reply::Memory { resident, limit } => assert!(resident > limit),
            r => panic!("{r:?}"),
        }
    }
}
