//! Running an outside resolver: one command line, run through the shell (`sh -c`) with
//! one instance on standard input and `GORDIAN_SYSTEM` set, whose standard output must be
//! one JSON object (the protocol of `docs/protocol.md`). What can go wrong with such a
//! process is an answer of its own ([`Fault`]), never a panic or a hang of gordian.
//!
//! Invariants: the command runs in a process group of its own, and every process of that
//! group is killed when the command ends, times out or the caller asks it to stop, so no
//! resolver outlives its instance; standard output is read concurrently (a resolver that
//! writes a lot never blocks) and kept up to [`MAX_OUTPUT`] bytes; only the tail of
//! standard error is kept, for messages.

use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The most standard output read from one run (a longer output is a fault).
pub const MAX_OUTPUT: usize = 256 << 20;
/// How much of the end of standard error is kept for messages.
const STDERR_TAIL: usize = 2000;

/// An outside resolver.
#[derive(Clone, Debug)]
pub struct Resolver {
    /// The command line, run through `sh -c`.
    pub command: String,
    /// The time one instance may take (`None`: no limit).
    pub timeout: Option<Duration>,
}

/// Why a run of the resolver gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The command could not be started.
    Spawn(String),
    /// It was killed by a signal (a crash: SIGSEGV, SIGABRT, ...).
    Crashed {
        /// The signal number.
        signal: i32,
        /// The end of its standard error.
        stderr: String,
    },
    /// It exited with a non-zero code.
    Exit {
        /// The exit code.
        code: i32,
        /// The end of its standard error.
        stderr: String,
    },
    /// It ran past the time limit and was killed.
    Timeout(Duration),
    /// It printed nothing (or only white space) on standard output.
    Empty {
        /// The end of its standard error.
        stderr: String,
    },
    /// Its standard output is not one JSON value.
    NotJson {
        /// The parser's message.
        error: String,
        /// The start of the output.
        excerpt: String,
    },
    /// Its standard output is JSON, but not an object.
    NotObject {
        /// What it is (`an array`, `a string`, ...).
        what: &'static str,
    },
    /// Its standard output is longer than [`MAX_OUTPUT`].
    TooLong,
}

impl Fault {
    /// A short name of the kind of fault (`crash`, `exit`, `timeout`, `no output`,
    /// `not JSON`, ...), the same for every fault of that kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Spawn(_) => "cannot start",
            Fault::Crashed { .. } => "crash",
            Fault::Exit { .. } => "non-zero exit",
            Fault::Timeout(_) => "timeout",
            Fault::Empty { .. } => "no output",
            Fault::NotJson { .. } => "not JSON",
            Fault::NotObject { .. } => "not a JSON object",
            Fault::TooLong => "output too long",
        }
    }
}

impl Fault {
    /// A short description for a table cell: the kind with its code, signal or time.
    pub fn short(&self) -> String {
        match self {
            Fault::Crashed { signal, .. } => format!("crash (signal {signal})"),
            Fault::Exit { code, .. } => format!("exit code {code}"),
            Fault::Timeout(t) => format!("no answer within {} s", t.as_secs_f64()),
            f => f.kind().to_string(),
        }
    }

    /// Whether `other` is the same fault (the shrinker's predicate): the same kind, and
    /// for a crash the same signal, for an exit the same code.
    pub fn same_as(&self, other: &Fault) -> bool {
        match (self, other) {
            (Fault::Crashed { signal: a, .. }, Fault::Crashed { signal: b, .. }) => a == b,
            (Fault::Exit { code: a, .. }, Fault::Exit { code: b, .. }) => a == b,
            (a, b) => a.kind() == b.kind(),
        }
    }
}

fn tail(s: &str) -> String {
    let s = s.trim();
    if s.is_empty() {
        return String::new();
    }
    format!(" (its standard error ends: {})", s.replace('\n', " | "))
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Spawn(e) => write!(f, "the resolver could not be started: {e}"),
            Fault::Crashed { signal, stderr } => {
                write!(
                    f,
                    "the resolver crashed (killed by signal {signal}){}",
                    tail(stderr)
                )
            }
            Fault::Exit { code, stderr } => {
                let hint = match code {
                    127 => " (the shell's code for a command not found)",
                    126 => " (the shell's code for a command that cannot be run)",
                    _ => "",
                };
                write!(
                    f,
                    "the resolver exited with code {code}{hint}{}",
                    tail(stderr)
                )
            }
            Fault::Timeout(t) => write!(
                f,
                "the resolver gave no answer within {} s (--case-timeout) and was killed",
                t.as_secs_f64()
            ),
            Fault::Empty { stderr } => write!(
                f,
                "the resolver printed nothing on standard output{}",
                tail(stderr)
            ),
            Fault::NotJson { error, excerpt } => write!(
                f,
                "the resolver's output is not JSON ({error}); it starts: {excerpt}"
            ),
            Fault::NotObject { what } => write!(
                f,
                "the resolver printed {what}, not the JSON object the protocol asks for"
            ),
            Fault::TooLong => write!(f, "the resolver printed more than {} MiB", MAX_OUTPUT >> 20),
        }
    }
}

/// Runs the resolver on `input` (an instance in its system's text format), with
/// `GORDIAN_SYSTEM=system`; `stop` set from outside kills it (reported as a timeout).
/// Returns its JSON object, or why there is none.
pub fn ask(
    resolver: &Resolver,
    system: &str,
    input: &str,
    stop: &AtomicBool,
) -> Result<serde_json::Map<String, Value>, Fault> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(&resolver.command)
        .env("GORDIAN_SYSTEM", system)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|e| Fault::Spawn(e.to_string()))?;
    let (status, stdout, stderr) = std::thread::scope(|scope| {
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let mut out = child.stdout.take().expect("stdout is piped");
        let mut err = child.stderr.take().expect("stderr is piped");
        // A resolver that does not read its input makes this write fail: that is its
        // business, judged by what it prints.
        scope.spawn(move || {
            ignore_sigpipe_in_this_thread();
            let _ = stdin.write_all(input.as_bytes());
        });
        let reader = scope.spawn(move || {
            let mut buf = Vec::new();
            let _ = (&mut out).take(MAX_OUTPUT as u64 + 1).read_to_end(&mut buf);
            buf
        });
        let errs = scope.spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            while let Ok(n) = err.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > 4 * STDERR_TAIL {
                    buf.drain(..buf.len() - STDERR_TAIL);
                }
            }
            buf
        });
        // Whatever the command left behind (background processes holding the pipes)
        // goes with it: `wait` kills the command's process group.
        let status = wait(&mut child, resolver.timeout, stop);
        let stdout = reader.join().unwrap_or_default();
        let stderr = errs.join().unwrap_or_default();
        (status, stdout, stderr)
    });
    let stderr = String::from_utf8_lossy(&stderr);
    let stderr: String = {
        let chars: Vec<char> = stderr.chars().collect();
        chars[chars.len().saturating_sub(STDERR_TAIL)..]
            .iter()
            .collect()
    };
    let status = match status {
        Some(s) => s,
        None => return Err(Fault::Timeout(resolver.timeout.unwrap_or(Duration::ZERO))),
    };
    if !status.success() {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if let Some(signal) = status.signal() {
                return Err(Fault::Crashed { signal, stderr });
            }
        }
        // `sh -c` reports a child killed by signal N as exit code 128 + N.
        let code = status.code().unwrap_or(-1);
        if (129..=159).contains(&code) {
            return Err(Fault::Crashed {
                signal: code - 128,
                stderr,
            });
        }
        return Err(Fault::Exit { code, stderr });
    }
    if stdout.len() > MAX_OUTPUT {
        return Err(Fault::TooLong);
    }
    let text = String::from_utf8_lossy(&stdout);
    if text.trim().is_empty() {
        return Err(Fault::Empty { stderr });
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(v) => Err(Fault::NotObject {
            what: match v {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            },
        }),
        Err(e) => Err(Fault::NotJson {
            error: e.to_string(),
            excerpt: excerpt(&text),
        }),
    }
}

fn excerpt(text: &str) -> String {
    let t: String = text.trim().chars().take(120).collect();
    let t = t.replace('\n', " ");
    if text.trim().chars().count() > 120 {
        format!("{t} ...")
    } else {
        t
    }
}

/// Waits for the child: `None` if the time ran out or `stop` was set (it is killed then).
/// On Unix the child is seen to exit before it is reaped, so that its process group can
/// be killed while its id cannot have been reused by another process.
fn wait(
    child: &mut Child,
    timeout: Option<Duration>,
    stop: &AtomicBool,
) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(200);
    loop {
        if exited(child) {
            kill_group(child);
            return child.wait().ok();
        }
        if stop.load(Ordering::Relaxed) || timeout.is_some_and(|t| start.elapsed() >= t) {
            kill_group(child);
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    }
}

/// Whether the child has exited, without reaping it (`waitid` with `WNOWAIT`).
#[cfg(unix)]
fn exited(child: &mut Child) -> bool {
    let pid: libc::id_t = child.id();
    // SAFETY: waitid writes only into `info`, a zeroed siginfo_t we own.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_PID,
            pid,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        // An error (no such child) means there is nothing left to wait for.
        r != 0 || info.si_pid() != 0
    }
}

/// Whether the child has exited (reaping it; `wait` then returns its cached status).
#[cfg(not(unix))]
fn exited(child: &mut Child) -> bool {
    !matches!(child.try_wait(), Ok(None))
}

/// Blocks SIGPIPE in the calling thread: gordian restores its default action (so that
/// `gordian ... | head` ends quietly), and writing to a resolver that exited without
/// reading its input would otherwise end gordian. The write fails with `EPIPE` instead;
/// the pending signal is discarded with the thread.
fn ignore_sigpipe_in_this_thread() {
    #[cfg(unix)]
    // SAFETY: sigemptyset/sigaddset initialise a local set; pthread_sigmask changes only
    // the calling thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Kills every process of the child's process group (and the child).
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill(2) with a negative pid signals a process group; it touches no
            // memory of ours.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn run(cmd: &str, timeout_ms: u64) -> Result<serde_json::Map<String, Value>, Fault> {
        let r = Resolver {
            command: cmd.to_string(),
            timeout: Some(Duration::from_millis(timeout_ms)),
        };
        ask(&r, "toy", "1 2 3\n", &AtomicBool::new(false))
    }

    #[test]
    fn an_object_is_an_answer_and_the_input_and_system_reach_the_command() {
        let a = run(
            r#"read line; printf '{"input": "%s", "system": "%s"}' "$line" "$GORDIAN_SYSTEM""#,
            5000,
        )
        .expect("an answer");
        assert_eq!(a["input"], "1 2 3");
        assert_eq!(a["system"], "toy");
    }

    #[test]
    fn each_way_of_failing_is_reported_as_what_it_is() {
        assert!(matches!(
            run("echo oops >&2; exit 3", 5000),
            Err(Fault::Exit { code: 3, ref stderr }) if stderr.contains("oops")
        ));
        assert!(matches!(
            run("kill -SEGV $$", 5000),
            Err(Fault::Crashed { signal: 11, .. })
        ));
        assert!(matches!(run("true", 5000), Err(Fault::Empty { .. })));
        assert!(matches!(
            run("echo 'hello {'", 5000),
            Err(Fault::NotJson { ref excerpt, .. }) if excerpt == "hello {"
        ));
        assert_eq!(
            run("echo '[1]'", 5000),
            Err(Fault::NotObject { what: "an array" })
        );
        assert!(matches!(
            run("exec /nonexistent/resolver", 5000),
            Err(Fault::Exit { code: 127, .. })
        ));
    }

    #[test]
    fn the_same_fault_has_the_same_code_or_signal() {
        let exit = |code| Fault::Exit {
            code,
            stderr: String::new(),
        };
        let crash = |signal| Fault::Crashed {
            signal,
            stderr: String::new(),
        };
        assert!(exit(7).same_as(&exit(7)) && !exit(7).same_as(&exit(1)));
        assert!(crash(11).same_as(&crash(11)) && !crash(11).same_as(&crash(6)));
        assert!(!exit(11).same_as(&crash(11)));
        let empty = |e: &str| Fault::Empty { stderr: e.into() };
        assert!(
            empty("a").same_as(&empty("b")),
            "the message does not matter"
        );
        assert_eq!(exit(7).short(), "exit code 7");
    }

    #[test]
    fn a_hanging_resolver_and_its_children_are_killed_at_the_timeout() {
        let start = Instant::now();
        // The background sleep holds standard output open: it must be killed too, or
        // reading the output would wait its 300 s (the bound only tells the two apart).
        let r = run("sleep 300 & sleep 300", 200);
        assert_eq!(r, Err(Fault::Timeout(Duration::from_millis(200))));
        assert!(
            start.elapsed() < Duration::from_secs(150),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn a_resolver_that_ignores_its_input_is_judged_by_its_output() {
        let big = "x".repeat(1 << 20);
        let r = Resolver {
            command: r#"echo '{"ok": true}'"#.to_string(),
            timeout: Some(Duration::from_secs(5)),
        };
        let a = ask(&r, "toy", &big, &AtomicBool::new(false)).expect("answer");
        assert_eq!(a["ok"], true);
    }
}
