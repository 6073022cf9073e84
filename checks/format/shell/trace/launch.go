package trace

import (
	"strconv"
	"strings"
)

// A launcher starts a command somewhere else (a container, a cluster
// node) with the same files: the repository is mounted where the script
// expects it. A dry run follows the command as if it ran here, with the
// environment the launcher adds. Each takes the launcher's arguments
// after its name and returns the command and the variables it sets.
var launchers = map[string]func(args []string) (cmd []string, env map[string]string){
	"docker":  dockerRun,
	"podman":  dockerRun,
	"srun":    slurmTask,
	"sbatch":  slurmRun,
	"salloc":  slurmRun,
	"mpirun":  mpiRun,
	"mpiexec": mpiRun,
}

// mpiFlags are mpirun's options that take no value.
var mpiFlags = set("--oversubscribe", "--allow-run-as-root", "--bind-to-none", "--tag-output", "-q", "--quiet", "-v", "--verbose")

// mpiRun reads "mpirun [options] COMMAND...", with -x NAME=VALUE setting
// the command's environment.
func mpiRun(args []string) ([]string, map[string]string) {
	env := map[string]string{}
	rest := options(args, mpiFlags, func(opt, val string) bool {
		if opt == "-x" {
			if k, v, ok := strings.Cut(val, "="); ok {
				env[k] = v
			}
		}
		return false
	})
	return rest, env
}

// dockerFlags are docker run's options that take no value.
var dockerFlags = set("--rm", "-d", "--detach", "-i", "-t", "-it", "-ti", "--init", "--privileged", "--interactive", "--tty", "-P", "--read-only")

// dockerRun reads "docker run [options] IMAGE [COMMAND...]" (and exec,
// which names a container instead of an image).
func dockerRun(args []string) ([]string, map[string]string) {
	if len(args) == 0 || (args[0] != "run" && args[0] != "exec") {
		return nil, nil
	}
	env := map[string]string{}
	rest := options(args[1:], dockerFlags, func(opt, val string) bool {
		if opt == "-e" || opt == "--env" {
			if k, v, ok := strings.Cut(val, "="); ok {
				env[k] = v
			}
		}
		return false
	})
	if len(rest) < 2 {
		return nil, env // an image alone runs its own entrypoint
	}
	return rest[1:], env
}

// containerEnv is what `docker run` passes into its container from the
// host: a container's environment is its own (the image's and the -e
// variables), and a host variable reaches it only when -e names it
// without a value. own is false when the command does not say all of it
// (--env-file, a file the dry run does not read; exec, whose container
// was set up elsewhere): then the host's environment is kept.
func containerEnv(args []string) (pass []string, own bool) {
	if len(args) == 0 || args[0] != "run" {
		return nil, false
	}
	own = true
	options(args[1:], dockerFlags, func(opt, val string) bool {
		switch opt {
		case "-e", "--env":
			if !strings.Contains(val, "=") {
				pass = append(pass, val)
			}
		case "--env-file":
			own = false
		}
		return false
	})
	return pass, own
}

// slurmFlags are srun/sbatch options that take no value.
var slurmFlags = set("--exclusive", "--overlap", "--pty", "-l", "--label", "--no-container-mount-home",
	"--container-remap-root", "--no-container-remap-root", "--container-writable", "--container-readonly",
	"--container-mount-home", "--container-entrypoint", "--no-container-entrypoint", "--mpi=pmix", "-Q", "--quiet", "-v", "--verbose", "--wait", "-W", "--parsable",
	// Options whose value is optional, written without one.
	"--unbuffered", "-u", "--kill-on-bad-exit", "-K", "--no-kill", "-k", "--exact", "--whole", "--propagate",
	"--contiguous", "--oversubscribe", "-O", "--hold", "-H", "--requeue", "--no-requeue", "--spread-job",
	"--test-only", "--use-min-nodes", "--disable-status", "-X", "--no-allocate", "-Z", "--export-file")

// slurmRun reads "srun|sbatch|salloc [options] COMMAND..."; sbatch
// --wrap runs its string as a command.
func slurmRun(args []string) ([]string, map[string]string) {
	var wrap []string
	nodes, tasks := "", ""
	// The job's variables, as Slurm sets them in a batch script and its
	// steps: the allocation's size where the options say it, and those
	// --export names (ALL,NAME=VALUE,…; a comma always separates).
	env := map[string]string{"SLURM_JOB_ID": batchJobID, "SLURM_JOBID": batchJobID}
	rest := options(args, slurmFlags, func(opt, val string) bool {
		switch opt {
		case "--wrap":
			wrap = []string{"bash", "-c", val}
			return true
		case "-N", "--nodes":
			nodes = val
		case "-n", "--ntasks":
			tasks = val
		case "--export":
			for _, item := range strings.Split(val, ",") {
				if k, v, ok := strings.Cut(item, "="); ok && k != "" {
					env[k] = v
				}
			}
		}
		return false
	})
	if n := count(nodes); n > 0 {
		env["SLURM_NNODES"], env["SLURM_JOB_NUM_NODES"] = strconv.Itoa(n), strconv.Itoa(n)
	}
	if n := count(tasks); n > 0 {
		env["SLURM_NTASKS"], env["SLURM_NPROCS"] = strconv.Itoa(n), strconv.Itoa(n)
	}
	if wrap != nil {
		return wrap, env
	}
	return rest, env
}

// count reads a Slurm count ("4", or a range "2-4" whose least is
// granted); 0 when it is not one.
func count(s string) int {
	s, _, _ = strings.Cut(s, "-")
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// slurmNode is the node a dry run's Slurm tasks run on, as a healthy
// cluster names it to them.
const slurmNode = "node001"

// slurmTask reads srun: its command runs as a task of the job, with the
// variables Slurm gives every task.
func slurmTask(args []string) ([]string, map[string]string) {
	cmd, env := slurmRun(args)
	for k, v := range map[string]string{"SLURM_JOB_ID": batchJobID, "SLURM_JOBID": batchJobID, "SLURM_STEP_ID": "0",
		"SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NODEID": "0", "SLURMD_NODENAME": slurmNode} {
		env[k] = v
	}
	return cmd, env
}

// taskRanks are the ranks of an srun step a dry run follows: the step
// has as many tasks as its --ntasks, else its --nodes, else the
// allocation's (one per node); a script that picks its role by rank (rank
// 0 serves prefill and runs the client, the last rank decodes) is
// followed as its first task and, when there are more, its last.
func taskRanks(step, job map[string]string) []int {
	n := 0
	for _, v := range []string{step["SLURM_NTASKS"], step["SLURM_NNODES"], job["SLURM_NTASKS"], job["SLURM_NNODES"]} {
		if n = count(v); n > 0 {
			break
		}
	}
	if n <= 1 {
		return []int{0}
	}
	return []int{0, n - 1}
}

// options consumes a launcher's options (--opt=val, --opt val, or a flag
// in flags), calling each with its value until each returns true, and
// returns what follows them.
func options(args []string, flags map[string]bool, each func(opt, val string) bool) []string {
	rest := args
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		opt := rest[0]
		val, hasVal := "", strings.Contains(opt, "=")
		if hasVal {
			opt, val, _ = strings.Cut(opt, "=")
		}
		rest = rest[1:]
		// An option the table does not know takes the next word as its
		// value, unless that word is a long option itself.
		if !hasVal && !flags[opt] && len(rest) > 0 && !strings.HasPrefix(rest[0], "--") {
			val, rest = rest[0], rest[1:]
		}
		if each(opt, val) {
			break
		}
	}
	return rest
}

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}
