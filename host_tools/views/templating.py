"""The views' pages are Jinja2 templates (host_tools/views/templates/): one
environment for them all, autoescaped (every value a page shows is text),
undefined names an error, made once."""
import jinja2

_env = None


def environment():
    global _env
    if _env is None:
        _env = jinja2.Environment(loader=jinja2.PackageLoader("host_tools.views", "templates"),
                                  autoescape=True, undefined=jinja2.StrictUndefined,
                                  trim_blocks=True, lstrip_blocks=True)
    return _env
