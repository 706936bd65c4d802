"""Everything ckviz writes goes through here: files (`writer`) and its own stdout/stderr
(`streams`), so that no output path can lose results, replace a device or hang."""
