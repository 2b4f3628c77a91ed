//! The `$(name arg ...)` substitution language of ROS 2 launch frontends.
//!
//! Grammar (launch's `grammar.lark`): outside a substitution, `\c` stands for `c` and `$`
//! not followed by `(` is literal. Inside, arguments are separated by one space; an argument
//! is either unquoted text (no spaces, quotes or parentheses unless escaped, may contain
//! nested substitutions) or a single- or double-quoted string (may contain spaces and nested
//! substitutions).

use std::fmt;

/// Text with substitutions, concatenated when evaluated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Template {
    /// The pieces, in order.
    pub parts: Vec<Part>,
}

/// A piece of a [`Template`].
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Literal text (escapes already removed).
    Text(String),
    /// A substitution performed at evaluation time.
    Sub(Substitution),
}

/// One `$(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Substitution {
    /// Which substitution.
    pub kind: SubstitutionKind,
    /// Its arguments, each itself a template.
    pub args: Vec<Template>,
}

/// The supported substitutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubstitutionKind {
    /// `$(var name [default])`: a launch configuration (argument or `let`).
    Var,
    /// `$(env NAME [default])`: an environment variable, an error if unset without default.
    Env,
    /// `$(find-pkg-share pkg)`: `<prefix>/share/<pkg>`.
    FindPkgShare,
    /// `$(find-pkg-prefix pkg)`: the install prefix holding `pkg`.
    FindPkgPrefix,
    /// `$(exec-in-pkg exec pkg)`: `<prefix>/lib/<pkg>/<exec>`.
    ExecInPkg,
    /// `$(dirname)`: the directory of the current launch file.
    Dirname,
    /// `$(filename)`: the path of the current launch file.
    Filename,
}

impl SubstitutionKind {
    /// Every supported substitution.
    pub const ALL: [Self; 7] =
        [Self::Var, Self::Env, Self::FindPkgShare, Self::FindPkgPrefix, Self::ExecInPkg, Self::Dirname, Self::Filename];

    /// The supported substitution whose name is closest to `name` (fewest single-character
    /// edits), for "did you mean" in errors.
    pub fn nearest(name: &str) -> Self {
        Self::ALL.into_iter().min_by_key(|k| edit_distance(name, k.name())).unwrap_or(Self::Var)
    }

    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "var" => Self::Var,
            "env" => Self::Env,
            "find-pkg-share" => Self::FindPkgShare,
            "find-pkg-prefix" => Self::FindPkgPrefix,
            "exec-in-pkg" => Self::ExecInPkg,
            "dirname" => Self::Dirname,
            "filename" => Self::Filename,
            _ => return None,
        })
    }

    /// The name used in launch files.
    pub fn name(self) -> &'static str {
        match self {
            Self::Var => "var",
            Self::Env => "env",
            Self::FindPkgShare => "find-pkg-share",
            Self::FindPkgPrefix => "find-pkg-prefix",
            Self::ExecInPkg => "exec-in-pkg",
            Self::Dirname => "dirname",
            Self::Filename => "filename",
        }
    }

    /// Allowed argument counts (min, max).
    fn arity(self) -> (usize, usize) {
        match self {
            Self::Var | Self::Env => (1, 2),
            Self::FindPkgShare | Self::FindPkgPrefix => (1, 1),
            Self::ExecInPkg => (2, 2),
            Self::Dirname | Self::Filename => (0, 0),
        }
    }
}

/// Levenshtein distance between two names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

impl Template {
    /// A template of literal text only.
    pub fn literal(text: impl Into<String>) -> Self {
        Self { parts: vec![Part::Text(text.into())] }
    }

    /// The text, if the template has no substitution.
    pub fn as_literal(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Sub(_) => return None,
            }
        }
        Some(out)
    }

    /// True if evaluating the template performs at least one substitution.
    pub fn has_substitutions(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Sub(_)))
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.parts {
            match part {
                Part::Text(t) => f.write_str(t)?,
                Part::Sub(s) => {
                    write!(f, "$({}", s.kind.name())?;
                    for arg in &s.args {
                        write!(f, " {arg}")?;
                    }
                    f.write_str(")")?;
                }
            }
        }
        Ok(())
    }
}

/// Why a template does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateError {
    /// Not valid substitution syntax.
    Syntax(String),
    /// A substitution outside the supported set.
    Unsupported(String),
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(m) | Self::Unsupported(m) => f.write_str(m),
        }
    }
}

/// Parses `text` into a [`Template`].
pub fn parse_template(text: &str) -> Result<Template, TemplateError> {
    let mut parser = TemplateParser { chars: text.chars().collect(), pos: 0, source: text };
    let parts = parser.parse_top()?;
    Ok(Template { parts })
}

struct TemplateParser<'a> {
    chars: Vec<char>,
    pos: usize,
    source: &'a str,
}

impl TemplateParser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek2(&self) -> Option<char> {
        self.chars.get(self.pos + 1).copied()
    }

    fn at_substitution(&self) -> bool {
        self.peek() == Some('$') && self.peek2() == Some('(')
    }

    fn syntax(&self, what: &str) -> TemplateError {
        TemplateError::Syntax(format!("bad substitution syntax in \"{}\" at character {}: {what}", self.source, self.pos + 1))
    }

    fn parse_top(&mut self) -> Result<Vec<Part>, TemplateError> {
        let mut parts = Vec::new();
        let mut text = String::new();
        while let Some(c) = self.peek() {
            if self.at_substitution() {
                flush(&mut text, &mut parts);
                parts.push(Part::Sub(self.parse_substitution()?));
            } else if c == '\\' && self.peek2().is_some() {
                text.extend(self.peek2());
                self.pos += 2;
            } else {
                text.push(c);
                self.pos += 1;
            }
        }
        flush(&mut text, &mut parts);
        Ok(parts)
    }

    /// At `$(`; reads through the closing `)`.
    fn parse_substitution(&mut self) -> Result<Substitution, TemplateError> {
        self.pos += 2;
        let start = self.pos;
        match self.peek() {
            Some(c) if c.is_alphabetic() => {}
            _ => return Err(self.syntax("expected a substitution name after `$(`")),
        }
        while matches!(self.peek(), Some(c) if c.is_alphanumeric() || c == '_' || c == '-') {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos].iter().collect();
        let mut args = Vec::new();
        loop {
            match self.peek() {
                Some(')') => {
                    self.pos += 1;
                    break;
                }
                Some(' ') => {
                    self.pos += 1;
                    if matches!(self.peek(), Some(' ') | Some(')')) {
                        return Err(self.syntax("expected exactly one space between arguments"));
                    }
                    args.push(self.parse_argument()?);
                }
                None => return Err(self.syntax("missing `)`")),
                Some(_) => return Err(self.syntax("expected a space or `)`")),
            }
        }
        let kind = SubstitutionKind::from_name(&name).ok_or_else(|| {
            TemplateError::Unsupported(format!(
                "substitution `$({name} ...)` in \"{}\" (nearest supported: `{}`; ROS 1's optenv is `$(env NAME default)` in ROS 2)",
                self.source,
                SubstitutionKind::nearest(&name).name()
            ))
        })?;
        let (min, max) = kind.arity();
        if args.len() < min || args.len() > max {
            let expected = if min == max { format!("{min}") } else { format!("{min} or {max}") };
            return Err(TemplateError::Syntax(format!(
                "`$({name} ...)` takes {expected} argument(s), got {} in \"{}\"",
                args.len(),
                self.source
            )));
        }
        Ok(Substitution { kind, args })
    }

    fn parse_argument(&mut self) -> Result<Template, TemplateError> {
        match self.peek() {
            Some(q @ ('\'' | '"')) => self.parse_quoted(q),
            _ => self.parse_unquoted(),
        }
    }

    fn parse_quoted(&mut self, quote: char) -> Result<Template, TemplateError> {
        self.pos += 1;
        let mut parts = Vec::new();
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return Err(self.syntax("missing closing quote")),
                Some(c) if c == quote => {
                    self.pos += 1;
                    break;
                }
                Some('\\') if self.peek2().is_some() => {
                    text.extend(self.peek2());
                    self.pos += 2;
                }
                Some(_) if self.at_substitution() => {
                    flush(&mut text, &mut parts);
                    parts.push(Part::Sub(self.parse_substitution()?));
                }
                Some(c) => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        flush(&mut text, &mut parts);
        match self.peek() {
            Some(' ') | Some(')') => Ok(Template { parts }),
            _ => Err(self.syntax("a quoted argument must end at a space or `)`")),
        }
    }

    fn parse_unquoted(&mut self) -> Result<Template, TemplateError> {
        let mut parts = Vec::new();
        let mut text = String::new();
        loop {
            match self.peek() {
                None | Some(' ') | Some(')') => break,
                Some('\\') if self.peek2().is_some() => {
                    text.extend(self.peek2());
                    self.pos += 2;
                }
                Some(_) if self.at_substitution() => {
                    flush(&mut text, &mut parts);
                    parts.push(Part::Sub(self.parse_substitution()?));
                }
                Some('(' | '\'' | '"') => return Err(self.syntax("quotes and parentheses inside an argument need a `\\`")),
                Some(c) => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        flush(&mut text, &mut parts);
        Ok(Template { parts })
    }
}

fn flush(text: &mut String, parts: &mut Vec<Part>) {
    if !text.is_empty() {
        parts.push(Part::Text(std::mem::take(text)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(kind: SubstitutionKind, args: &[&str]) -> Part {
        Part::Sub(Substitution { kind, args: args.iter().map(|a| Template::literal(*a)).collect() })
    }

    #[test]
    fn plain_text_and_escapes() {
        assert_eq!(parse_template("abc").unwrap(), Template::literal("abc"));
        assert_eq!(parse_template("a\\$(b)").unwrap(), Template::literal("a$(b)"));
        assert_eq!(parse_template("cost $5").unwrap(), Template::literal("cost $5"));
        assert_eq!(parse_template("").unwrap(), Template::default());
    }

    #[test]
    fn substitutions_between_text() {
        let t = parse_template("$(find-pkg-share flotilla)/config/$(var scenario).yaml").unwrap();
        assert_eq!(
            t.parts,
            vec![
                sub(SubstitutionKind::FindPkgShare, &["flotilla"]),
                Part::Text("/config/".into()),
                sub(SubstitutionKind::Var, &["scenario"]),
                Part::Text(".yaml".into()),
            ]
        );
        assert!(t.has_substitutions());
        assert_eq!(t.to_string(), "$(find-pkg-share flotilla)/config/$(var scenario).yaml");
    }

    #[test]
    fn quoted_arguments_keep_spaces() {
        let t = parse_template("$(env HOME 'a b')").unwrap();
        assert_eq!(t.parts, vec![sub(SubstitutionKind::Env, &["HOME", "a b"])]);
        let t = parse_template("$(env X \"$(var y) z\")").unwrap();
        let Part::Sub(s) = &t.parts[0] else { panic!() };
        assert_eq!(s.args[1].parts[1], Part::Text(" z".into()));
    }

    #[test]
    fn nested_substitution_in_unquoted_argument() {
        let t = parse_template("$(var $(var which)_rate)").unwrap();
        let Part::Sub(s) = &t.parts[0] else { panic!() };
        assert_eq!(s.args[0].parts[0], sub(SubstitutionKind::Var, &["which"]));
        assert_eq!(s.args[0].parts[1], Part::Text("_rate".into()));
    }

    #[test]
    fn errors() {
        assert!(matches!(parse_template("$(var x"), Err(TemplateError::Syntax(_))));
        assert!(matches!(parse_template("$(var  x)"), Err(TemplateError::Syntax(_))));
        assert!(matches!(parse_template("$(var)"), Err(TemplateError::Syntax(_))));
        assert!(matches!(parse_template("$(dirname x)"), Err(TemplateError::Syntax(_))));
        assert!(matches!(parse_template("$(var a(b))"), Err(TemplateError::Syntax(_))));
        let e = parse_template("$(eval 1 + 2)").unwrap_err();
        assert!(matches!(&e, TemplateError::Unsupported(m) if m.contains("$(eval")), "{e}");
        // ROS 1's optenv is not a ROS 2 substitution (Jazzy refuses it): named, with the nearest.
        let e = parse_template("$(optenv TMPDIR /tmp)").unwrap_err().to_string();
        assert!(e.contains("$(optenv") && e.contains("nearest supported: `env`"), "{e}");
    }
}
