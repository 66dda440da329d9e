"""docker-compose.yml and the Dockerfile (issue 8), checked without a
container daemon: no image registry is reachable from the build machines.

- `docker-compose config` (Debian's docker-compose) parses the file, and the
  parsed result has PostgreSQL 15 with a volume and a health check, two
  registry nodes on it with health checks on the registry's own endpoint,
  and nginx in front naming both nodes.
- The Dockerfile builds with scripts/install-deps.sh, runs as a non-root
  user, and its runtime stage installs every package that the built binary's
  shared libraries come from (ldd + dpkg -S) beyond Debian's required base.
"""

import os
import re
import subprocess
import unittest

import harness

TOP = os.path.abspath(os.path.join(harness.HERE, "..", ".."))
COMPOSE = os.path.join(TOP, "docker-compose.yml")
DOCKERFILE = os.path.join(TOP, "Dockerfile")
INSTALL_DEPS = os.path.join(TOP, "scripts", "install-deps.sh")

try:
    import yaml                                 # python3-yaml, a dependency of docker-compose
except ImportError as exc:
    raise SystemExit(f"python3-yaml is not importable ({exc}); run scripts/install-deps.sh") from exc


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)


def group(name):
    r = run(["bash", INSTALL_DEPS, "--list", name])
    assert r.returncode == 0, r
    return set(r.stdout.split())


class Compose(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        r = run(["docker-compose", "-f", COMPOSE, "config"], cwd=TOP)
        if r.returncode != 0:
            raise AssertionError(f"docker-compose config failed:\n{r.stderr}")
        cls.config = yaml.safe_load(r.stdout)
        cls.services = cls.config["services"]

    def test_services(self):
        self.assertEqual(set(self.services), {"postgres", "registry-1", "registry-2", "lb"})

    def test_postgres_15_with_a_volume_and_a_health_check(self):
        pg = self.services["postgres"]
        self.assertRegex(pg["image"], r"^postgres:15\b")
        self.assertIn("pgdata", self.config["volumes"])
        self.assertTrue(any(v.startswith("pgdata:/var/lib/postgresql/data") for v in pg["volumes"]))
        self.assertIn("pg_isready", " ".join(pg["healthcheck"]["test"]))

    def test_two_registry_nodes_on_the_database_with_their_own_health_check(self):
        urls = set()
        for name in ("registry-1", "registry-2"):
            node = self.services[name]
            self.assertEqual(node["build"]["context"], TOP)
            self.assertEqual(node["depends_on"]["postgres"]["condition"], "service_healthy")
            urls.add(node["environment"]["SCHEMA_REGISTRY_DATABASE_URL"])
            check = node["healthcheck"]["test"]
            self.assertIn("http://127.0.0.1:8081/health/ready", check)
        self.assertEqual(len(urls), 1, "both nodes must share one database")
        self.assertIn("@postgres:5432/", urls.pop())

    def test_load_balancer_in_front_of_both_nodes(self):
        lb = self.services["lb"]
        self.assertRegex(lb["image"], r"^nginx:")
        self.assertEqual([(p["published"], p["target"]) for p in lb["ports"]], [(8081, 8081)])
        conf_mount = [v for v in lb["volumes"] if v.endswith(":/etc/nginx/nginx.conf:ro")]
        self.assertEqual(len(conf_mount), 1, lb["volumes"])
        with open(conf_mount[0].split(":")[0]) as f:
            conf = f.read()
        self.assertEqual(re.findall(r"server (registry-\d):8081", conf), ["registry-1", "registry-2"])
        for name in ("registry-1", "registry-2"):
            self.assertEqual(lb["depends_on"][name]["condition"], "service_healthy")


class Dockerfile(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(DOCKERFILE) as f:
            cls.text = f.read()

    def test_debian_12_stages_built_with_install_deps(self):
        self.assertEqual(re.findall(r"^FROM (\S+)", self.text, re.M), ["debian:12-slim", "debian:12-slim"])
        self.assertRegex(self.text, r"RUN \./scripts/install-deps\.sh build\b")
        self.assertRegex(self.text, r"install-deps\.sh image\b")
        self.assertIn("--target schema-registry", self.text)

    def test_runs_as_a_non_root_user(self):
        users = re.findall(r"^USER (\S+)", self.text, re.M)
        self.assertEqual(len(users), 1)
        self.assertNotIn(users[0], ("root", "0"))
        self.assertRegex(self.text, rf"useradd [^\n]*\b{users[0]}\b")

    def test_runtime_stage_has_every_library_the_binary_links(self):
        """Each shared library of the built binary comes from a package that
        installing the image group brings (itself or a dependency of it)."""
        ldd = run(["ldd", harness.server_binary()])
        self.assertEqual(ldd.returncode, 0, ldd)
        libs = re.findall(r"=> (/\S+)", ldd.stdout)
        self.assertTrue(libs)
        closure = run(["apt-cache", "depends", "--recurse", "--installed", "--no-recommends",
                       "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces",
                       "--no-enhances", *sorted(group("image"))])
        self.assertEqual(closure.returncode, 0, closure)
        brought = {line.split(":")[0] for line in closure.stdout.split() if not line.startswith("<")}
        # The sanitizer build's runtime and what it links (libstdc++) are not the image's.
        sanitizer = {lib for lib in libs if re.search(r"/lib(a|ub|t)san\.so", lib)}
        for runtime in list(sanitizer):
            sanitizer.update(re.findall(r"=> (/\S+)", run(["ldd", runtime]).stdout))
        for lib in libs:
            if lib in sanitizer and not re.search(r"/lib(c|m|pthread|dl|rt|gcc_s)\.so", lib):
                continue
            owner = run(["dpkg", "-S", os.path.realpath(lib)])
            if owner.returncode != 0:
                owner = run(["dpkg", "-S", lib])
            self.assertEqual(owner.returncode, 0, f"no package owns {lib}")
            pkg = owner.stdout.split(":")[0]
            self.assertIn(pkg, brought, f"{lib} comes from {pkg}, which the image group does not bring")

    def test_build_stage_configures_with_the_build_group_alone(self):
        """The build stage's own cmake command configures when pkg-config sees only
        what the build group brings (libcmocka-dev, libavro-dev: test group)."""
        m = re.search(r"^RUN (cmake -S \. -B build [^\\\n]*)", self.text, re.M)
        self.assertIsNotNone(m, "no cmake configure line in the build stage")
        closure = run(["apt-cache", "depends", "--recurse", "--installed", "--no-recommends",
                       "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces",
                       "--no-enhances", *sorted(group("build"))])
        self.assertEqual(closure.returncode, 0, closure)
        pkgs = sorted({line.split(":")[0] for line in closure.stdout.split() if not line.startswith("<")})
        files = run(["dpkg", "-L", *pkgs]).stdout.split()
        tmp = harness.make_temp_dir("docker-build")
        pcdir = os.path.join(tmp, "pkgconfig")
        os.mkdir(pcdir)
        for path in files:
            if path.endswith(".pc") and os.path.isfile(path):
                dest = os.path.join(pcdir, os.path.basename(path))
                if not os.path.exists(dest):
                    os.symlink(path, dest)
        self.assertTrue(os.path.exists(os.path.join(pcdir, "jansson.pc")))
        self.assertFalse(os.path.exists(os.path.join(pcdir, "cmocka.pc")))
        argv = m.group(1).split()
        argv[argv.index("-S") + 1] = TOP
        argv[argv.index("-B") + 1] = os.path.join(tmp, "build")
        env = dict(os.environ, PKG_CONFIG_LIBDIR=pcdir, PKG_CONFIG_PATH="")
        r = run(argv, env=env)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])
        # The same configure with the tests on needs cmocka: the check above is not vacuous.
        r = run(argv[:-1] + ["-DSR_TESTS=ON"] if argv[-1] == "-DSR_TESTS=OFF" else argv + ["-DSR_TESTS=ON"],
                env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cmocka", r.stdout + r.stderr)

if __name__ == "__main__":
    harness.main()
