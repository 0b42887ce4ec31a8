package flagenv

import (
	"fmt"
	"reflect"

	"github.com/caarlos0/env/v11"
)

// Defaults sets each field of cfg (a pointer to a tagged struct, as Parse
// takes, or one without flags) that is unset to its envDefault: a struct
// built in code gets the defaults a parsed one has, from the same tags.
// A field is unset when it is zero, or a negative number. Fields of the
// structs cfg embeds are set too.
func Defaults(cfg any) error {
	def := reflect.New(reflect.TypeOf(cfg).Elem())
	if err := env.ParseWithOptions(def.Interface(), env.Options{Environment: map[string]string{}}); err != nil {
		return fmt.Errorf("read the defaults of %T: %w", cfg, err)
	}
	fill(reflect.ValueOf(cfg).Elem(), def.Elem())
	return nil
}

// fill sets the unset fields of dst to those of def.
func fill(dst, def reflect.Value) {
	for i := range dst.NumField() {
		f, sf := dst.Field(i), dst.Type().Field(i)
		switch {
		case !f.CanSet():
		case sf.Anonymous && f.Kind() == reflect.Struct:
			fill(f, def.Field(i))
		case unset(f):
			f.Set(def.Field(i))
		}
	}
}

// unset reports whether v holds no setting: zero, or a negative number.
func unset(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() <= 0
	case reflect.Float32, reflect.Float64:
		return v.Float() <= 0
	}
	return v.IsZero()
}
