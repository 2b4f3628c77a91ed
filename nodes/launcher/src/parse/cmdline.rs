//! Splitting `args:` / `ros_args:` into arguments the way launch's `_parse_cmdline` does:
//! literal text is split like a POSIX shell (`shlex.split`); a substitution sticks to the text
//! it touches, so `$(find-pkg-share p)/a.yaml b` gives two arguments.

use crate::ast::Text;
use crate::error::LaunchError;
use crate::substitution::{Part, Template};

/// Splits `text` into one [`Text`] per command-line argument.
pub fn split_command_line(text: &Text) -> Result<Vec<Text>, LaunchError> {
    let mut args: Vec<Template> = Vec::new();
    let mut current = Template::default();
    let push = |current: &mut Template, args: &mut Vec<Template>| {
        if !current.parts.is_empty() {
            args.push(std::mem::take(current));
        }
    };
    for part in &text.template.parts {
        match part {
            Part::Sub(_) => current.parts.push(part.clone()),
            Part::Text(t) => {
                let tokens =
                    shlex::split(t).ok_or_else(|| LaunchError::invalid(&text.loc, format!("unbalanced quotes in arguments \"{t}\"")))?;
                let Some((first, rest)) = tokens.split_first() else {
                    push(&mut current, &mut args);
                    continue;
                };
                if t.starts_with(char::is_whitespace) {
                    push(&mut current, &mut args);
                }
                current.parts.push(Part::Text(first.clone()));
                if let Some((last, middle)) = rest.split_last() {
                    push(&mut current, &mut args);
                    args.extend(middle.iter().map(|m| Template::literal(m.clone())));
                    current.parts.push(Part::Text(last.clone()));
                }
                if t.ends_with(char::is_whitespace) {
                    push(&mut current, &mut args);
                }
            }
        }
    }
    push(&mut current, &mut args);
    Ok(args.into_iter().map(|template| Text { template, loc: text.loc.clone() }).collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::location::Loc;
    use crate::substitution::parse_template;

    fn split(s: &str) -> Vec<String> {
        let text = Text { template: parse_template(s).unwrap(), loc: Loc::new(Arc::from(Path::new("f")), 1, 1) };
        split_command_line(&text).unwrap().iter().map(|t| t.template.to_string()).collect()
    }

    #[test]
    fn plain_words_and_quotes() {
        assert_eq!(split("--rate 30 'a b'"), vec!["--rate", "30", "a b"]);
        assert_eq!(split("  "), Vec::<String>::new());
    }

    #[test]
    fn substitutions_stick_to_adjacent_text() {
        assert_eq!(split("$(find-pkg-share p)/a.yaml b c $(var x)"), vec!["$(find-pkg-share p)/a.yaml", "b", "c", "$(var x)"]);
        assert_eq!(split("$(var a) $(var b)"), vec!["$(var a)", "$(var b)"]);
        assert_eq!(split("--file=$(var f)"), vec!["--file=$(var f)"]);
        assert_eq!(split("x $(var a)y z"), vec!["x", "$(var a)y", "z"]);
    }

    #[test]
    fn unbalanced_quote_is_an_error() {
        let text = Text { template: parse_template("'a").unwrap(), loc: Loc::new(Arc::from(Path::new("f.yaml")), 7, 3) };
        let err = split_command_line(&text).unwrap_err().to_string();
        assert!(err.starts_with("f.yaml:7:3"), "{err}");
    }
}
