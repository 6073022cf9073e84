package gitsource

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// errMissing is what cat-file answers for a name that resolves to nothing.
var errMissing = errors.New("no such object")

// catFile is one long-running `git cat-file --batch` process. Requests are
// serialized over its pipes (the protocol is strictly request, response);
// callers waiting for the process can give up through their context. Once
// the process breaks every later request fails with the same error rather
// than reading a half-answered stream.
type catFile struct {
	turn chan struct{} // one token: whoever holds it talks to the process
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	err  error // sticky failure, guarded by turn
	stop sync.Once
}

func startCatFile(g gitRunner) (*catFile, error) {
	cmd := g.command(context.Background(), "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("starting git cat-file: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("starting git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting git cat-file: %w", err)
	}
	c := &catFile{turn: make(chan struct{}, 1), cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
	c.turn <- struct{}{}
	return c, nil
}

// object is one object as cat-file returned it. Data is nil when the object
// was over the caller's cap (Size says how large it is).
type object struct {
	OID  string
	Type string
	Size int64
	Data []byte
}

// read asks for one object by name (an OID or any extended SHA-1
// expression without a newline). Objects over max bytes are skipped on the
// stream and returned without Data.
func (c *catFile) read(ctx context.Context, name string, max int64) (object, error) {
	if strings.ContainsAny(name, "\n\x00") {
		return object{}, fmt.Errorf("object name %q contains a newline", name)
	}
	select {
	case <-c.turn:
	case <-ctx.Done():
		return object{}, ctx.Err()
	}
	defer func() { c.turn <- struct{}{} }()
	if c.err != nil {
		return object{}, c.err
	}
	o, err := c.exchange(name, max)
	if err != nil && !errors.Is(err, errMissing) {
		c.err = fmt.Errorf("git cat-file stopped answering: %w", err)
		c.kill()
	}
	return o, err
}

func (c *catFile) exchange(name string, max int64) (object, error) {
	if _, err := io.WriteString(c.in, name+"\n"); err != nil {
		return object{}, err
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return object{}, err
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return object{}, fmt.Errorf("%s: %w", header, errMissing)
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return object{}, fmt.Errorf("unexpected cat-file header %q", header)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return object{}, fmt.Errorf("unexpected cat-file header %q", header)
	}
	o := object{OID: f[0], Type: f[1], Size: size}
	if size > max {
		if _, err := io.CopyN(io.Discard, c.out, size+1); err != nil {
			return object{}, err
		}
		return o, nil
	}
	buf := make([]byte, size+1)
	if _, err := io.ReadFull(c.out, buf); err != nil {
		return object{}, err
	}
	if buf[size] != '\n' {
		return object{}, fmt.Errorf("object %s is not followed by a newline", o.OID)
	}
	o.Data = buf[:size]
	return o, nil
}

func (c *catFile) kill() {
	c.stop.Do(func() {
		c.in.Close()
		if c.cmd.Process != nil {
			_ = c.cmd.Process.Kill()
		}
		_ = c.cmd.Wait()
	})
}

// errClosed answers requests made after close.
var errClosed = errors.New("the repository reader is closed")

// close ends the process once the current request is answered: closing its
// input makes it exit on its own.
func (c *catFile) close() error {
	<-c.turn
	defer func() { c.turn <- struct{}{} }()
	var err error
	c.stop.Do(func() {
		c.in.Close()
		err = c.cmd.Wait()
	})
	if c.err == nil {
		c.err = errClosed
	}
	return err
}
