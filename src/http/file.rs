//! The breakers file (`circuit_breaker.http_config`): named breakers, each
//! with its hosts and its overrides of the defaults, in INI sections as
//! PHP operators write them. An error names the file, the line, the key
//! and its limits, and leaves out only the section it is in: one wrong
//! breaker never turns the others off.
//!
//! ```ini
//! [defaults]                 ; every circuit, those of http_hosts included
//! open_duration = 20
//!
//! [payments]                 ; a breaker named "payments"
//! hosts = api.stripe.com, *.paypal.com:443
//! failure_rate = 25
//! ```

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::policy::{CurveSetting, HalfOpenSetting, MaxOpenDuration, Mode, Policy, Settings, StorageSetting};
use super::target::HostPattern;

/// A breaker of the file: one circuit for every request to its hosts.
#[derive(Debug)]
pub struct NamedBreaker {
    pub name: String,
    pub hosts: Vec<HostPattern>,
    pub policy: Rc<Policy>,
}

/// What the file declares.
#[derive(Debug)]
pub struct BreakersFile {
    /// The settings of `[defaults]` over the built-in defaults: those of
    /// the circuits of `circuit_breaker.http_hosts`, and the base of every
    /// named breaker.
    pub defaults: Settings,
    /// In the order of the file: the first whose hosts match a request guards it.
    pub breakers: Vec<NamedBreaker>,
    /// What was left out, in the order of the file: a section that is
    /// wrong guards nothing (a wrong `[defaults]` leaves the built-in
    /// defaults), and every other one guards.
    pub refused: Vec<Refused>,
}

/// A section, or a line outside any, left out of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The section's name (`None`: a line before any section, or a section
    /// header that is not one).
    pub section: Option<String>,
    pub error: FileError,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.section.as_deref() {
            Some(DEFAULTS) => write!(
                formatter,
                "{}: [defaults] is left out, the built-in defaults apply",
                self.error
            ),
            Some(name) => write!(formatter, "{}: breaker [{name}] is left out", self.error),
            None => write!(formatter, "{}: the line is left out", self.error),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct FileError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// The largest breakers file read: far above any real one (a breaker takes
/// a few lines), and a bound on what a wrong path (`/dev/zero`) costs.
pub const MAX_FILE_SIZE: u64 = 1 << 20;

/// Why a breakers file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("'{0}' cannot be read: {1}")]
    Io(String, std::io::Error),
    #[error("'{0}' is not a regular file (a breakers file is read from a regular file only)")]
    NotAFile(String),
    #[error("'{0}' is larger than {MAX_FILE_SIZE} bytes, the most a breakers file may hold")]
    TooLarge(String),
}

/// The text of the breakers file at `path`: a regular file of at most
/// [`MAX_FILE_SIZE`] bytes. Opened without blocking, then checked, so that
/// a FIFO or a device never holds PHP's startup.
pub fn read(path: &str) -> Result<String, ReadError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |error| ReadError::Io(path.to_owned(), error);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(ReadError::NotAFile(path.to_owned()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_SIZE + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(ReadError::TooLarge(path.to_owned()));
    }
    String::from_utf8(bytes).map_err(|_| io(std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8")))
}

/// The breakers file at `path` as PHP's startup reads it: [`read`], then
/// [`parse`].
pub fn load(path: &str, mode: Mode) -> Result<BreakersFile, ReadError> {
    Ok(parse(path, &read(path)?, mode))
}

/// The name of the section that holds the defaults.
pub const DEFAULTS: &str = "defaults";

/// Every key a section may hold, with its limits: what an error says.
const KEYS: &[(&str, &str)] = &[
    (
        "hosts",
        "a comma-separated list of host patterns (host, host:port, *.domain, *.domain:port)",
    ),
    ("time_window", "10 to 3600 seconds"),
    ("failure_rate", "a percentage from 1 to 100, or off"),
    ("minimum_requests", "an integer of at least 1"),
    ("consecutive_failures", "an integer of at least 1, or off"),
    ("slow_call_duration", "seconds, at least 0.001, or off"),
    ("slow_call_rate", "a percentage from 1 to 100"),
    ("open_duration", "1 to 2592000 seconds (30 days)"),
    (
        "max_open_duration",
        "open_duration to 2592000 seconds (30 days), or off (default: 10 times open_duration)",
    ),
    ("half_open", "permitted_calls or ramp"),
    ("half_open_calls", "an integer of at least 1"),
    ("half_open_max_duration", "1 to 2592000 seconds (30 days)"),
    ("ramp_duration", "1 to 2592000 seconds (30 days)"),
    ("ramp_curve", "exponential or power"),
    ("ramp_initial_ratio", "a ratio above 0 and below 1"),
    ("ramp_exponent", "a number above 0"),
    (
        "failure_statuses",
        "a comma-separated list of HTTP statuses from 100 to 599, or none",
    ),
    ("probe_timeout", super::policy::PROBE_TIMEOUT_LIMITS),
    ("max_concurrent_calls", "an integer from 1 to 256, or off"),
    ("throttling_k", "1 to 10, or off"),
    ("mode", Mode::LIMITS),
    ("storage", StorageSetting::LIMITS),
];

fn limits_of(key: &str) -> Option<&'static str> {
    KEYS.iter().find(|(name, _)| *name == key).map(|(_, limits)| *limits)
}

/// The key whose value a core `ConfigError` on `parameter` is about.
fn key_of_parameter(parameter: &str) -> &'static str {
    match parameter {
        "timeWindow" => "time_window",
        "threshold" | "openingRules" => "failure_rate",
        "minimumRequests" => "minimum_requests",
        "failures" => "consecutive_failures",
        "slowCallDuration" => "slow_call_duration",
        "openDuration" => "open_duration",
        "maxOpenDuration" => "max_open_duration",
        "permittedCalls" => "half_open_calls",
        "maxDuration" => "half_open_max_duration",
        "duration" => "ramp_duration",
        "initialRatio" => "ramp_initial_ratio",
        "exponent" => "ramp_exponent",
        "maxConcurrentCalls" => "max_concurrent_calls",
        "k" | "maxRejectionRate" => "throttling_k",
        _ => "probe_timeout",
    }
}

/// One section as written: its keys, values and lines, and the first
/// error of its lines (which leaves it out).
struct Section {
    /// `None` for a header that is not one: its lines are left out with it.
    name: Option<String>,
    line: usize,
    entries: Vec<(String, String, usize)>,
    error: Option<(usize, String)>,
}

/// Reads the file's text; `file` names it in the errors. Never fails as a
/// whole: what is wrong is left out, said in [`BreakersFile::refused`].
pub fn parse(file: &str, text: &str, mode: Mode) -> BreakersFile {
    let error = |(line, message): (usize, String)| FileError {
        file: file.to_owned(),
        line,
        message,
    };
    let (sections, stray) = sections(text);
    let mut refused: Vec<Refused> = stray
        .into_iter()
        .map(|stray| Refused {
            section: None,
            error: error(stray),
        })
        .collect();
    let mut refuse = |section: &Section, problem: (usize, String)| {
        refused.push(Refused {
            section: section.name.clone(),
            error: error(problem),
        });
    };
    let mut defaults = Settings::default();
    // Where each key of [defaults] was set, for the errors of a breaker that inherits it.
    let mut default_lines: HashMap<String, usize> = HashMap::new();
    let mut defaults_seen = false;
    let mut names: HashSet<&str> = HashSet::new();
    let mut breakers = Vec::new();
    for section in &sections {
        if let Some(problem) = section.error.clone() {
            refuse(section, problem);
            continue;
        }
        let Some(name) = section.name.as_deref() else {
            continue;
        };
        if name == DEFAULTS {
            if std::mem::replace(&mut defaults_seen, true) {
                refuse(section, (section.line, "[defaults] is declared twice".into()));
                continue;
            }
            match read_defaults(section, mode) {
                Ok((settings, lines)) => (defaults, default_lines) = (settings, lines),
                Err(problem) => refuse(section, problem),
            }
            continue;
        }
        if !names.insert(name) {
            refuse(section, (section.line, format!("[{name}] is declared twice")));
            continue;
        }
        match read_breaker(section, name, &defaults, &default_lines, mode) {
            Ok(breaker) => breakers.push(breaker),
            Err(problem) => refuse(section, problem),
        }
    }
    BreakersFile {
        defaults,
        breakers,
        refused,
    }
}

/// The settings of a `[defaults]` section, and the line of each key.
fn read_defaults(section: &Section, mode: Mode) -> Result<(Settings, HashMap<String, usize>), (usize, String)> {
    let mut defaults = Settings::default();
    let mut lines = HashMap::new();
    for (key, value, line) in &section.entries {
        if key == "hosts" {
            return Err((
                *line,
                "hosts: [defaults] names no hosts (put them in circuit_breaker.http_hosts, or in a named section)"
                    .into(),
            ));
        }
        apply(&mut defaults, key, value).map_err(|message| (*line, message))?;
        lines.insert(key.clone(), *line);
    }
    check(&defaults, mode, &HashMap::new(), &lines, section.line)?;
    Ok((defaults, lines))
}

/// The breaker of a named section, over the defaults.
fn read_breaker(
    section: &Section,
    name: &str,
    defaults: &Settings,
    default_lines: &HashMap<String, usize>,
    mode: Mode,
) -> Result<NamedBreaker, (usize, String)> {
    let mut settings = defaults.clone();
    let mut lines = HashMap::new();
    let mut hosts = None;
    for (key, value, line) in &section.entries {
        if key == "hosts" {
            hosts = Some(HostPattern::parse_list(value).map_err(|pattern| (*line, format!("hosts: {pattern}")))?);
        } else {
            apply(&mut settings, key, value).map_err(|message| (*line, message))?;
        }
        lines.insert(key.clone(), *line);
    }
    let hosts = hosts.filter(|hosts| !hosts.is_empty()).ok_or_else(|| {
        (
            section.line,
            format!("[{name}] has no hosts: {}", limits_of("hosts").unwrap_or_default()),
        )
    })?;
    let policy = check(&settings, mode, &lines, default_lines, section.line)?;
    Ok(NamedBreaker {
        name: name.to_owned(),
        hosts,
        policy: Rc::new(policy),
    })
}

/// The policy of `settings`, or the error of the key that made it invalid.
fn check(
    settings: &Settings,
    mode: Mode,
    lines: &HashMap<String, usize>,
    default_lines: &HashMap<String, usize>,
    section_line: usize,
) -> Result<Policy, (usize, String)> {
    settings.policy(mode).map_err(|config_error| {
        let key = key_of_parameter(config_error.parameter);
        let line = lines
            .get(key)
            .or_else(|| default_lines.get(key))
            .copied()
            .unwrap_or(section_line);
        (
            line,
            format!(
                "{key} = '{}': {}",
                config_error.value,
                limits_of(key).unwrap_or(config_error.limits)
            ),
        )
    })
}

/// The sections of the text, and the errors of the lines outside any.
fn sections(text: &str) -> (Vec<Section>, Vec<(usize, String)>) {
    let mut sections: Vec<Section> = Vec::new();
    let mut stray = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = strip_comment(raw).trim();
        if content.is_empty() {
            continue;
        }
        if let Some(name) = content.strip_prefix('[') {
            let name = name.strip_suffix(']').map(str::trim).filter(|name| !name.is_empty());
            sections.push(Section {
                name: name.map(str::to_owned),
                line,
                entries: Vec::new(),
                error: name
                    .is_none()
                    .then(|| (line, format!("'{content}' is not a section header: write [name]"))),
            });
            continue;
        }
        let entry = match content.split_once('=') {
            None => Err(format!("'{content}' is neither a [section] nor a key = value line")),
            Some((key, value)) => {
                let key = key.trim().to_ascii_lowercase();
                if limits_of(&key).is_none() {
                    let known: Vec<&str> = KEYS.iter().map(|(name, _)| *name).collect();
                    Err(format!(
                        "'{key}' is not a key of a breaker (keys: {})",
                        known.join(", ")
                    ))
                } else {
                    Ok((key, unquote(value.trim()).to_owned()))
                }
            }
        };
        let Some(section) = sections.last_mut() else {
            stray.push((
                line,
                match entry {
                    Ok((key, _)) => format!("{key}: a key belongs to a section: [defaults] or [name] first"),
                    Err(message) => message,
                },
            ));
            continue;
        };
        if section.error.is_some() {
            continue;
        }
        match entry {
            Ok((key, _)) if section.entries.iter().any(|(seen, _, _)| *seen == key) => {
                let name = section.name.as_deref().unwrap_or_default();
                section.error = Some((line, format!("{key} is set twice in [{name}]")));
            }
            Ok((key, value)) => section.entries.push((key, value, line)),
            Err(message) => section.error = Some((line, message)),
        }
    }
    (sections, stray)
}

/// A line without its comment (`;` or `#` outside quotes).
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (at, character) in line.char_indices() {
        match character {
            '"' => quoted = !quoted,
            ';' | '#' if !quoted => return &line[..at],
            _ => {}
        }
    }
    line
}

fn unquote(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|value| value.strip_suffix('"'))
        .unwrap_or(value)
}

fn is_off(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "off" | "none" | "no" | "false")
}

/// Sets `key` of `settings` from its text, or says what it must be.
fn apply(settings: &mut Settings, key: &str, value: &str) -> Result<(), String> {
    let limits = limits_of(key).unwrap_or_default();
    let refuse = || format!("{key} = '{value}': {limits}");
    let number = || {
        value
            .parse::<f64>()
            .ok()
            .filter(|number| number.is_finite())
            .ok_or_else(refuse)
    };
    let integer = || {
        value
            .parse::<i64>()
            .ok()
            .filter(|integer| *integer >= 1)
            .ok_or_else(refuse)
    };
    let percentage = || {
        number().and_then(|rate| {
            if (1.0..=100.0).contains(&rate) {
                Ok(rate)
            } else {
                Err(refuse())
            }
        })
    };
    match key {
        "time_window" => settings.time_window = number()?,
        "failure_rate" => settings.failure_rate = if is_off(value) { None } else { Some(percentage()?) },
        "minimum_requests" => settings.minimum_requests = integer()?,
        "consecutive_failures" => settings.consecutive_failures = if is_off(value) { None } else { Some(integer()?) },
        "slow_call_duration" => settings.slow_call_duration = if is_off(value) { None } else { Some(number()?) },
        "slow_call_rate" => settings.slow_call_rate = percentage()?,
        "max_concurrent_calls" => settings.max_concurrent_calls = if is_off(value) { None } else { Some(integer()?) },
        "throttling_k" => settings.throttling_k = if is_off(value) { None } else { Some(number()?) },
        "open_duration" => settings.open_duration = number()?,
        "max_open_duration" => {
            settings.max_open_duration = if is_off(value) {
                MaxOpenDuration::Off
            } else {
                MaxOpenDuration::Seconds(number()?)
            }
        }
        "half_open" => {
            let start = match value.to_ascii_lowercase().as_str() {
                "permitted_calls" => HalfOpenSetting::PERMITTED_CALLS,
                "ramp" => HalfOpenSetting::RAMP,
                _ => return Err(refuse()),
            };
            // Choosing the kind already in place keeps its settings.
            if std::mem::discriminant(&settings.half_open) != std::mem::discriminant(&start) {
                settings.half_open = start;
            }
        }
        "half_open_calls" | "half_open_max_duration" => {
            let HalfOpenSetting::PermittedCalls { calls, max_duration } = &mut settings.half_open else {
                return Err(format!(
                    "{key}: belongs to half_open = permitted_calls (set half_open first)"
                ));
            };
            if key == "half_open_calls" {
                *calls = integer()?;
            } else {
                *max_duration = number()?;
            }
        }
        "ramp_duration" | "ramp_curve" | "ramp_initial_ratio" | "ramp_exponent" => {
            let HalfOpenSetting::Ramp { duration, curve } = &mut settings.half_open else {
                return Err(format!("{key}: belongs to half_open = ramp (set half_open first)"));
            };
            match key {
                "ramp_duration" => *duration = number()?,
                "ramp_curve" => {
                    let initial_ratio = match *curve {
                        CurveSetting::Exponential { initial_ratio } | CurveSetting::Power { initial_ratio, .. } => {
                            initial_ratio
                        }
                    };
                    *curve = match value.to_ascii_lowercase().as_str() {
                        "exponential" => CurveSetting::Exponential { initial_ratio },
                        "power" => CurveSetting::Power {
                            initial_ratio,
                            exponent: 1.0,
                        },
                        _ => return Err(refuse()),
                    };
                }
                "ramp_initial_ratio" => match curve {
                    CurveSetting::Exponential { initial_ratio } | CurveSetting::Power { initial_ratio, .. } => {
                        *initial_ratio = number()?;
                    }
                },
                _ => match curve {
                    CurveSetting::Power { exponent, .. } => *exponent = number()?,
                    CurveSetting::Exponential { .. } => {
                        return Err(format!("{key}: belongs to ramp_curve = power (set ramp_curve first)"));
                    }
                },
            }
        }
        "failure_statuses" => {
            settings.failure_statuses = if is_off(value) {
                Vec::new()
            } else {
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|status| !status.is_empty())
                    .map(|status| status.parse::<u16>().ok().filter(|status| (100..=599).contains(status)))
                    .collect::<Option<Vec<u16>>>()
                    .ok_or_else(refuse)?
            }
        }
        "probe_timeout" => settings.probe_timeout = number()?,
        "mode" => settings.mode = Some(Mode::parse(value).ok_or_else(refuse)?),
        "storage" => settings.storage = StorageSetting::parse(value).ok_or_else(refuse)?,
        _ => return Err(refuse()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::target::Target;

    const SAMPLE: &str = include_str!("../../ext/http-breakers.ini");

    #[test]
    fn the_shipped_sample_is_valid() {
        let file = parse("sample.ini", SAMPLE, Mode::Enforce);
        assert_eq!(file.refused, vec![]);
        assert!(!file.breakers.is_empty());
    }

    #[test]
    fn sections_override_the_defaults() {
        let text = "; a comment\n[defaults]\nopen_duration = 20 ; open for 20 s\n\n[payments]\nhosts = api.stripe.com, *.paypal.com:443\nfailure_rate = 25\nfailure_statuses = 500, 503\nmode = observe\n[opa]\nhosts = \"opa:8181\"\nconsecutive_failures = off\nhalf_open = ramp\nramp_curve = power\nramp_exponent = 2\nstorage = memcached://127.0.0.1\n";
        let file = parse("b.ini", text, Mode::Enforce);
        assert_eq!(file.refused, vec![]);
        assert_eq!(file.defaults.open_duration, 20.0);
        let payments = &file.breakers[0];
        assert_eq!(payments.name, "payments");
        assert_eq!(payments.policy.config.open_duration_ms, 20_000);
        assert_eq!(payments.policy.failure_statuses, vec![500, 503]);
        assert_eq!(payments.policy.mode, Mode::Observe);
        let target = Target::of_url(b"https://www.paypal.com/x").unwrap();
        assert!(payments.hosts.iter().any(|host| host.matches(&target)));
        let opa = &file.breakers[1];
        assert_eq!(opa.policy.config.rules.len(), 1);
        assert_eq!(opa.policy.mode, Mode::Enforce);
        assert_eq!(
            opa.policy.storage,
            StorageSetting::Memcached(vec!["127.0.0.1:11211".into()])
        );
    }

    fn error_of(text: &str) -> String {
        let file = parse("/etc/b.ini", text, Mode::Enforce);
        file.refused.first().expect("an error").error.to_string()
    }

    fn names(file: &BreakersFile) -> Vec<&str> {
        file.breakers.iter().map(|breaker| breaker.name.as_str()).collect()
    }

    #[test]
    fn a_wrong_breaker_is_left_out_and_every_other_guards() {
        // Kipchak's sample as teams copy it: a breaker without hosts, an unknown key.
        let text = "[defaults]\nopen_duration = 20\n[no-hosts]\nfailure_rate = 20\n[typo]\nhosts = a.example\nthreshold = 5\n[payments]\nhosts = api.stripe.com\n[bad-line]\nhosts = b.example\njust words\n[ok]\nhosts = c.example\n";
        let file = parse("/etc/b.ini", text, Mode::Enforce);
        assert_eq!(names(&file), ["payments", "ok"]);
        assert_eq!(file.defaults.open_duration, 20.0);
        let refused: Vec<String> = file.refused.iter().map(ToString::to_string).collect();
        assert_eq!(refused.len(), 3);
        assert!(
            refused[0].starts_with("/etc/b.ini:3: [no-hosts] has no hosts"),
            "{}",
            refused[0]
        );
        assert!(
            refused[0].ends_with(": breaker [no-hosts] is left out"),
            "{}",
            refused[0]
        );
        assert!(
            refused[1].starts_with("/etc/b.ini:7: 'threshold' is not a key of a breaker"),
            "{}",
            refused[1]
        );
        assert!(
            refused[2].starts_with("/etc/b.ini:12: 'just words' is neither"),
            "{}",
            refused[2]
        );
    }

    #[test]
    fn a_wrong_or_second_defaults_section_is_left_out_and_said() {
        let file = parse(
            "/etc/b.ini",
            "[defaults]\nopen_duration = 20\n[a]\nhosts = x\n[defaults]\nopen_duration = -1\n",
            Mode::Enforce,
        );
        assert_eq!(file.defaults.open_duration, 20.0);
        assert_eq!(names(&file), ["a"]);
        assert_eq!(
            file.refused.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["/etc/b.ini:5: [defaults] is declared twice: [defaults] is left out, the built-in defaults apply"]
        );
        let file = parse(
            "/etc/b.ini",
            "[defaults]\ntime_window = 5\n[a]\nhosts = x\n",
            Mode::Enforce,
        );
        assert_eq!(file.defaults.time_window, Settings::default().time_window);
        assert_eq!(names(&file), ["a"]);
        assert_eq!(file.refused.len(), 1);
    }

    #[test]
    fn many_sections_are_read_in_one_pass() {
        let text: String = (0..20_000).map(|n| format!("[b{n}]\nhosts = h{n}.example\n")).collect();
        let file = parse("/etc/b.ini", &(text.clone() + "[b7]\nhosts = again\n"), Mode::Enforce);
        assert_eq!(file.breakers.len(), 20_000);
        assert_eq!(file.refused.len(), 1);
    }

    #[test]
    fn errors_name_the_file_the_line_the_key_and_the_limits() {
        assert_eq!(
            error_of("[a]\nhosts = x\n\nfailure_rate = 150\n"),
            "/etc/b.ini:4: failure_rate = '150': a percentage from 1 to 100, or off"
        );
        assert_eq!(
            error_of("[defaults]\ntime_window = 5\n[a]\nhosts = x\n"),
            "/etc/b.ini:2: time_window = '5': 10 to 3600 seconds"
        );
        assert_eq!(
            error_of("[defaults]\nopen_duration = 600\n[a]\nhosts = x\nmax_open_duration = 300\n"),
            "/etc/b.ini:5: max_open_duration = '300': open_duration to 2592000 seconds (30 days), or off (default: 10 times open_duration)"
        );
        assert!(
            error_of("[a]\nhost = x\n").starts_with("/etc/b.ini:2: 'host' is not a key of a breaker (keys: hosts,")
        );
        assert!(error_of("[a]\nfailure_rate = 20\n").starts_with("/etc/b.ini:1: [a] has no hosts"));
        assert!(
            error_of("[a]\nhosts = http://x/\n").starts_with("/etc/b.ini:2: hosts: 'http://x/' is not a host pattern")
        );
        assert!(error_of("open_duration = 3\n").starts_with("/etc/b.ini:1: open_duration: a key belongs to a section"));
        assert!(error_of("[a\n").starts_with("/etc/b.ini:1: '[a' is not a section header"));
        assert!(error_of("[a]\nhosts = x\n[a]\nhosts = y\n").starts_with("/etc/b.ini:3: [a] is declared twice"));
        assert!(error_of("[a]\nhosts = x\nmode = loud\n").contains("mode = 'loud': enforce, observe or off"));
        assert!(error_of("[a]\nhosts = x\nfailure_statuses = 500, 700\n").contains("failure_statuses = '500, 700'"));
        assert!(error_of("[a]\nhosts = x\nfailure_rate = off\nconsecutive_failures = off\n").contains("failure_rate"));
        assert!(error_of("[a]\nhosts = x\nramp_duration = 3\n").contains("belongs to half_open = ramp"));
        assert!(error_of("[a]\nhosts = x\nprobe_timeout = 0\n").contains("/etc/b.ini:3: probe_timeout = '0'"));
    }
}
