"""The README's picture of the ratings on the results page, made again:

    .venv/bin/python -m tools.results_screens [DIR]     # default docs/screens (make docs)

The club's evening of tests/results_sample.py (three tables, five people,
every game), its results page (speedref-results --html), opened in headless
Chromium at 1280 px: the Ratings section is saved as DIR/results_ratings.png.
Needs Chromium, chromedriver and selenium, as tests/web/test_web_results_page.py;
without them it says so and exits 1.  No tests here.
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"   # the evening (results_sample) and the browser (test_web) are the tests' own
sys.path[:0] = [str(TESTS), str(TESTS / "web"), str(ROOT), str(ROOT / "firmware"), str(ROOT / "compat")]

import results_sample as sample   # noqa: E402

WIDTH = 1280


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    out_dir = Path(argv[0]) if argv else ROOT / "docs" / "screens"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")) or not shutil.which("chromedriver"):
        print("results_screens: needs chromium and chromedriver (apt-get install chromium chromium-driver)",
              file=sys.stderr)
        return 1
    from test_web import make_driver
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        # one moment for the whole evening, so the ratings' order (and the
        # picture) is the same at every run: by each table's game numbers
        from host_tools.club import db as dbmod
        real, dbmod.now = dbmod.now, lambda: "2026-12-01T20:00:00+00:00"
        try:
            sample.make_evening(d / "club.db")
        finally:
            dbmod.now = real
        subprocess.run([str(Path(sys.executable).parent / "speedref-results"), "--db", "club.db", "--html",
                        "results.html"], cwd=str(d), check=True, capture_output=True)
        drv = make_driver(d / "profile")
        try:
            drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False})
            drv.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": True})
            drv.get((d / "results.html").as_uri())
            from selenium.webdriver.common.by import By
            section = drv.find_element(By.ID, "ratings")
            high = drv.execute_script("return Math.ceil(document.getElementById('ratings').getBoundingClientRect().bottom)")
            drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": WIDTH, "height": high + 20, "deviceScaleFactor": 1, "mobile": False})
            out_dir.mkdir(parents=True, exist_ok=True)
            shot = out_dir / "results_ratings.png"
            section.screenshot(str(shot))
        finally:
            drv.quit()
    print("wrote %s" % shot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
