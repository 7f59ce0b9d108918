//! Which parameters of a hook only reach the game: the hook's [`Shape`], read once from its syntax tree.

use super::*;

/// How a hook's body uses its parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Bit i: parameter i is only passed straight to traced game functions (so it is not
    /// part of the key).
    pub(crate) opaque: u32,
    /// Where: (call position, argument index, parameter index).
    sites: Vec<(Position, u8, u8)>,
    /// Parameters that are maps the body only reads fields of (`draft.final`): the key
    /// has those fields' values instead of the whole map.
    pub(crate) fields: Vec<(u8, ImmutableString)>,
}

impl Shape {
    /// The hook parameter passed as argument `arg` of the game function called at `pos`.
    pub(crate) fn param_at(&self, pos: Position, arg: usize) -> Option<u8> {
        self.sites
            .iter()
            .find(|(p, a, _)| *p == pos && *a as usize == arg)
            .map(|s| s.2)
    }

    /// Where a call starts: the number of players and the parameters that are not opaque
    /// (written into `key` when there are such parameters).
    pub(crate) fn root<'k>(
        &self,
        players: usize,
        params: &[Param<'_>],
        (rules, names): (Option<&Ruleset>, &crate::api::Names),
        key: &'k mut Option<Key>,
    ) -> Option<Root<'k>> {
        let all = (1u32 << params.len()) - 1;
        if self.opaque & all == all {
            return Some(Root::Players(players));
        }
        let key = key.insert(Key::default());
        key.push(players as i64)?;
        for (i, p) in params.iter().enumerate() {
            if self.opaque & (1 << i) != 0 {
                continue;
            }
            let mut fields = self
                .fields
                .iter()
                .filter(|(q, _)| *q as usize == i)
                .peekable();
            if fields.peek().is_some() {
                // Only these fields of the map can make a difference.
                let mut map = None;
                for (_, f) in fields {
                    let v = match p.field(f) {
                        Some(v) => v,
                        None => {
                            let m = map.get_or_insert_with(|| p.value(rules, names));
                            let m = m.read_lock::<Map>()?;
                            match m.get(f.as_str()) {
                                Some(v) => Some(Val::of(v)?),
                                None => None,
                            }
                        }
                    };
                    key.vals.get_or_insert_with(Vec::new).push(v);
                }
            } else {
                p.encode(key)?;
            }
        }
        Some(Root::Key(key))
    }
}

/// Finds the [`Shape`] of the hook function `name` with `arity` parameters: `traced` are
/// the names of the traced game functions (a script function of the same name hides one).
pub(crate) fn analyze(ast: &AST, name: &str, arity: usize, traced: &[&str]) -> Shape {
    let script_fns: Vec<String> = ast.iter_fn_def().map(|f| f.name.to_string()).collect();
    let Some(def) = ast
        .iter_fn_def()
        .find(|f| f.name == name && f.params.len() == arity)
    else {
        return Shape::default();
    };
    let params: Vec<String> = def.params.iter().map(|p| p.to_string()).collect();
    if params.len() > 16 {
        return Shape::default();
    }
    // The hook's body, by position (closures written inside it are in it too: their own
    // parameters can only make the analysis more careful).
    let at = |p: Position| Some((p.line()?, p.position().unwrap_or(0)));
    let (Some(start), Some(end)) = (at(def.body.start_position()), at(def.body.end_position()))
    else {
        return Shape::default();
    };
    let inside = |p: Position| at(p).is_some_and(|p| start <= p && p <= end);
    let index = |n: &str| params.iter().position(|p| p == n);
    let is_traced = |n: &str| traced.contains(&n) && !script_fns.iter().any(|f| f == n);
    let mut bad = 0u32;
    // Parameters used as a whole somewhere (not only through fields).
    let mut whole = 0u32;
    let mut fields: Vec<(u8, ImmutableString)> = Vec::new();
    let mut sites = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        let node = path[path.len() - 1];
        let parent = path.len().checked_sub(2).map(|i| path[i]);
        let mut shadow = |id: &rhai::Ident| {
            if let Some(p) = index(id.name.as_str()).filter(|_| inside(id.pos)) {
                bad |= 1 << p;
                whole |= 1 << p;
            }
        };
        match node {
            ASTNode::Expr(e @ Expr::Variable(v, _, pos)) if inside(*pos) => {
                if let Some(p) = index(v.1.as_str()) {
                    let call = match parent {
                        Some(ASTNode::Expr(Expr::FnCall(fc, pos)))
                        | Some(ASTNode::Stmt(Stmt::FnCall(fc, pos))) => Some((fc, *pos)),
                        _ => None,
                    };
                    let arg = call.and_then(|(fc, pos)| {
                        let i = fc.args.iter().position(|a| std::ptr::eq(a, e))?;
                        (is_traced(fc.name.as_str()) && !fc.capture_parent_scope)
                            .then_some((pos, i))
                    });
                    // `param.field`, read (not assigned, not a method call, not a chain).
                    let field = match parent {
                        Some(ASTNode::Expr(d @ Expr::Dot(x, _, _))) if std::ptr::eq(&x.lhs, e) => {
                            let assigned = path.len().checked_sub(3).is_some_and(|i| {
                                matches!(path[i], ASTNode::Stmt(Stmt::Assignment(a))
                                    if std::ptr::eq(&a.1.lhs, d))
                            });
                            match &x.rhs {
                                Expr::Property(prop, _) if !assigned => Some(prop.2.clone()),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    match (arg, field) {
                        (Some((pos, i)), _) if i < 8 => sites.push((pos, i as u8, p as u8)),
                        (_, Some(f)) => {
                            fields.push((p as u8, f));
                            bad |= 1 << p;
                        }
                        _ => {
                            bad |= 1 << p;
                            whole |= 1 << p;
                        }
                    }
                }
            }
            ASTNode::Expr(Expr::FnCall(fc, pos))
            | ASTNode::Expr(Expr::MethodCall(fc, pos))
            | ASTNode::Stmt(Stmt::FnCall(fc, pos))
                if fc.capture_parent_scope && inside(*pos) =>
            {
                // The callee sees every variable.
                bad = u32::MAX;
                whole = u32::MAX;
            }
            ASTNode::Stmt(Stmt::Var(x, ..)) => shadow(&x.0),
            ASTNode::Stmt(Stmt::For(x, ..)) => {
                shadow(&x.0);
                if let Some(c) = &x.1 {
                    shadow(c);
                }
            }
            ASTNode::Stmt(Stmt::TryCatch(x, pos)) if inside(*pos) => {
                if let Expr::Variable(v, _, _) = &x.expr {
                    if let Some(p) = index(v.1.as_str()) {
                        bad |= 1 << p;
                        whole |= 1 << p;
                    }
                }
            }
            ASTNode::Stmt(Stmt::Share(x)) => {
                for (id, _) in x.iter() {
                    shadow(id);
                }
            }
            _ => {}
        }
        true
    });
    let all = (1u32 << params.len()) - 1;
    let opaque = all & !bad;
    // A map parameter is keyed by its fields only when it reaches nothing else (a game
    // function given the whole map is checked with the map it was given then).
    let passed = sites.iter().fold(0u32, |m, s| m | 1 << s.2);
    fields.retain(|(p, _)| (whole | passed) & (1 << p) == 0);
    sites.retain(|s| opaque & (1 << s.2) != 0);
    fields.sort();
    fields.dedup();
    Shape {
        opaque,
        sites,
        fields,
    }
}
