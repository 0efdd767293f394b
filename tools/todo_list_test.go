package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/tools"
)

// recordingCommitter stands in for the agent: it keeps the records it
// commits and applies each to the store, like agent.apply does.
type recordingCommitter struct {
	store *tools.Store
	mu    sync.Mutex
	log   []tools.UpdateStore
}

func (c *recordingCommitter) CommitStoreUpdate(_ context.Context, u tools.UpdateStore) error {
	c.mu.Lock()
	c.log = append(c.log, u)
	c.mu.Unlock()
	c.store.Apply(u)
	return nil
}

func TestS87TodoList(t *testing.T) {
	store := tools.NewStore()
	committer := &recordingCommitter{store: store}
	todo := tools.NewTodoList(tools.TodoListOptions{Store: store, Committer: committer})

	r := call(t, todo, `{"todos":[{"title":"A","status":"in_progress"}]}`)
	if r.IsError || !strings.HasPrefix(text(r), "Todo list updated.\nCurrent todo list:\n  [in_progress] A") {
		t.Errorf("update = %q", text(r))
	}
	wantOK(t, call(t, todo, `{}`), "Current todo list:\n  [in_progress] A")

	// Resume: a fresh store rebuilt from the records holds the same list.
	resumed := tools.NewStore()
	for _, u := range committer.log {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var back tools.UpdateStore
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		resumed.Apply(back)
	}
	again := tools.NewTodoList(tools.TodoListOptions{Store: resumed})
	if diff := cmp.Diff([]tools.TodoItem{{Title: "A", Status: tools.TodoInProgress}}, again.Items()); diff != "" {
		t.Errorf("resumed list (-want +got):\n%s", diff)
	}

	wantOK(t, call(t, todo, `{"todos":[]}`), "Todo list cleared.")
	wantOK(t, call(t, todo, `{}`), "Todo list is empty.")
	if len(committer.log) != 2 || committer.log[0].Key != tools.StoreKeyTodo {
		t.Errorf("records = %+v", committer.log)
	}

	got := runTurn(t, []loop.ExecutableTool{todo}, looptest.Call("c1", "TodoList", `{"todos":[{"title":"A","status":"blocked"}]}`))
	if !got[0].IsError || !strings.HasPrefix(text(got[0]), `Invalid args for tool "TodoList": `) {
		t.Errorf("status blocked = %q; want a validation error", text(got[0]))
	}
}

func TestTodoListDisplay(t *testing.T) {
	todo := tools.NewTodoList(tools.TodoListOptions{})
	exec, _, err := todo.ResolveExecution([]byte(`{"todos":[{"title":"A","status":"done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &loop.TodoListDisplay{Items: []loop.TodoItem{{Title: "A", Status: "done"}}}
	if diff := cmp.Diff(want, exec.Display); diff != "" || exec.Description != "Updating todo list" || exec.ApprovalRule != "TodoList" {
		t.Errorf("display (-want +got):\n%s; description %q", diff, exec.Description)
	}
}
