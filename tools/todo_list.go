package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

//go:embed todo_list.md
var todoListMD string

const todoListSchema = `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "The complete new list; omit to read the list.",
      "items": {
        "type": "object",
        "properties": {
          "title": {"type": "string", "minLength": 1},
          "status": {"type": "string", "enum": ["pending", "in_progress", "done"]}
        },
        "required": ["title", "status"],
        "additionalProperties": false
      }
    }
  },
  "additionalProperties": false
}`

// TodoStatus is the state of one todo item, as stored.
type TodoStatus string

// Todo statuses.
const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoDone       TodoStatus = "done"
)

// TodoItem is one entry of the todo list, as stored under StoreKeyTodo.
type TodoItem struct {
	Title  string     `json:"title"`
	Status TodoStatus `json:"status"`
}

// TodoListOptions configure NewTodoList.
type TodoListOptions struct {
	// Store holds the list; nil means a private store.
	Store *Store
	// Committer records updates; nil applies them to Store directly.
	Committer StoreCommitter
}

// TodoList is the TodoList tool.
type TodoList struct {
	opts TodoListOptions
	def  llm.Tool
}

// NewTodoList returns the TodoList tool.
func NewTodoList(opts TodoListOptions) *TodoList {
	if opts.Store == nil {
		opts.Store = NewStore()
	}
	return &TodoList{opts: opts, def: definition(NameTodoList, todoListMD, nil, todoListSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *TodoList) Definition() llm.Tool { return t.def }

// Items returns the current list.
func (t *TodoList) Items() []TodoItem { return loadTodos(t.opts.Store) }

func loadTodos(s *Store) []TodoItem {
	raw, ok := s.Get(StoreKeyTodo)
	if !ok {
		return nil
	}
	var items []TodoItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil // a malformed stored value reads as an empty list
	}
	return items
}

// ResolveExecution implements loop.ExecutableTool.
func (t *TodoList) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		Todos *[]TodoItem `json:"todos"`
	}
	if r := decodeArgs(NameTodoList, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	if a.Todos != nil {
		for i, it := range *a.Todos {
			switch it.Status {
			case TodoPending, TodoInProgress, TodoDone:
			default:
				return loop.Execution{}, errorResult("todos[%d].status must be pending, in_progress or done; got %q.", i, it.Status), nil
			}
			if it.Title == "" {
				return loop.Execution{}, errorResult("todos[%d].title must not be empty.", i), nil
			}
		}
	}
	shown, desc := t.Items(), "Reading todo list"
	if a.Todos != nil {
		shown, desc = *a.Todos, "Updating todo list"
		if len(shown) == 0 {
			desc = "Clearing todo list"
		}
	}
	items := make([]loop.TodoItem, len(shown))
	for i, it := range shown {
		items[i] = loop.TodoItem{Title: it.Title, Status: string(it.Status)}
	}
	return loop.Execution{
		Description:  desc,
		Display:      &loop.TodoListDisplay{Items: items},
		ApprovalRule: NameTodoList,
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			if a.Todos == nil {
				return loop.TextResult(renderTodos(t.Items())), nil
			}
			return t.update(ctx, *a.Todos)
		},
	}, nil, nil
}

func (t *TodoList) update(ctx context.Context, items []TodoItem) (loop.ToolResult, error) {
	if items == nil {
		items = []TodoItem{}
	}
	value, err := json.Marshal(items)
	if err != nil {
		return loop.ToolResult{}, fmt.Errorf("encode todo list: %w", err)
	}
	if err := commitStore(ctx, t.opts.Committer, t.opts.Store, UpdateStore{Key: StoreKeyTodo, Value: value}); err != nil {
		return loop.ToolResult{}, fmt.Errorf("record todo list: %w", err)
	}
	if len(items) == 0 {
		return loop.TextResult("Todo list cleared."), nil
	}
	return loop.TextResult("Todo list updated.\n" + renderTodos(items) +
		"\n\nKeep the list current: mark each item done as soon as it is finished and keep one item in_progress while work remains."), nil
}

func renderTodos(items []TodoItem) string {
	if len(items) == 0 {
		return "Todo list is empty."
	}
	var b strings.Builder
	b.WriteString("Current todo list:")
	for _, it := range items {
		fmt.Fprintf(&b, "\n  [%s] %s", it.Status, it.Title)
	}
	return b.String()
}
